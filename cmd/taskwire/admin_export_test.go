package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/tenantarchive"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestAdminExportTenant: an owner downloads the tenant's archive with
// `taskwire admin tenants export` (JSON over HTTP), which imports into
// another database as the same board; an operator gets the same file over
// gRPC; an MCP token and another tenant are refused (a member who is no
// admin, in the console's test); and each export is in the audit log, as any admin call.
func TestAdminExportTenant(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	cs, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Ship the export"})
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Write the import"})
	nodetest.CallOK(t, cs, "comments_add", map[string]any{"ref": "T-1", "body": "Streamed, never whole."})
	owner := h.AdminToken(t, "owner")
	dir := t.TempDir()

	out := filepath.Join(dir, "default.zip")
	printed := a.cliOK(owner, "tenants", "export", "--out", out)
	if !strings.Contains(printed, "Exported tenant default") || !strings.Contains(printed, "2 tasks") {
		t.Errorf("tenants export printed %q, want the tenant and its 2 tasks", printed)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the export file: %v, %v; want it private to its owner (0600)", fi, err)
	}
	// The file is whole: it imports into a database of its own, where
	// the tasks keep their refs.
	var imported bytes.Buffer
	db := "sqlite:" + filepath.Join(dir, "other", "taskwire.db")
	if err := run(t.Context(), []string{"import", "--from", out, "--db", db}, &imported, io.Discard); err != nil {
		t.Fatalf("taskwire import of the downloaded export: %v", err)
	}
	if !strings.Contains(imported.String(), "2 tasks") || !strings.Contains(imported.String(), "1 comment") {
		t.Errorf("taskwire import printed %q, want 2 tasks and 1 comment", imported.String())
	}
	if _, err := a.cli(owner, "tenants", "export", "--out", out); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("export over an existing file = %v, want it refused", err)
	}

	// Over gRPC, the operator names the tenant and gets the same kind of
	// file, its name on the first chunk.
	stream, err := a.GRPC.ExportTenant(nodetest.AsGRPC(h.OperatorSecret(t)), &adminv1.ExportTenantRequest{Tenant: "default"})
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	name := ""
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("ExportTenant over gRPC: %v", err)
		}
		if file.Len() == 0 {
			name = chunk.GetFileName()
		}
		file.Write(chunk.GetData())
	}
	if !strings.HasPrefix(name, "taskwire-export-default-") || !strings.HasSuffix(name, ".zip") {
		t.Errorf("the first chunk names the file %q", name)
	}
	// The first export (the owner's) is in the audit log this one holds.
	if methods := auditedMethods(t, file.Bytes()); !slices.Contains(methods, "ExportTenant") {
		t.Errorf("the audit log of the second export holds %v, want the first ExportTenant", methods)
	}

	// Refusals, as JSON errors before any byte of a file.
	if code, body := a.Post(h.Token, "ExportTenant", `{}`); code != http.StatusUnauthorized {
		t.Errorf("ExportTenant with an MCP token = %d %v, want 401", code, body)
	}
	if code, body := a.Post(owner, "ExportTenant", `{"tenant": "elsewhere"}`); code != http.StatusNotFound {
		t.Errorf("ExportTenant of another tenant = %d %v, want 404", code, body)
	}
}

// auditedMethods returns the method names of the audit events in the
// export archive data.
func auditedMethods(t *testing.T, data []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("the gRPC export is no zip file: %v", err)
	}
	f, err := zr.Open(tenantarchive.AuditEventsEntry)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var methods []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct{ Method string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		methods = append(methods, ev.Method[strings.LastIndex(ev.Method, "/")+1:])
	}
	return methods
}
