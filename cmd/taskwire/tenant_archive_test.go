package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/board"
)

// TestExportImportCommands moves a tenant from one data directory to
// another with the commands, imports it again (nothing changes), and
// mints its owner a token there: the tenant works under its new slug.
func TestExportImportCommands(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	seedDataDir(t, from)
	file := filepath.Join(t.TempDir(), "acme.zip")

	out := runOK(t, "export", "--data", from, "--tenant", "acme", "--out", file)
	if !strings.Contains(out, "Exported tenant acme to "+file) || !strings.Contains(out, "1 task, 0 links, 1 comment,") {
		t.Errorf("export printed %q, want the tenant, the file and the counts", out)
	}
	out = runOK(t, "import", "--data", to, "--from", file, "--tenant", "beta")
	if !strings.Contains(out, "as tenant beta") || !strings.Contains(out, "taskwire token create --tenant beta --member HANDLE") {
		t.Errorf("import printed %q, want the new tenant and how its members get tokens", out)
	}
	if out = runOK(t, "import", "--data", to, "--from", file, "--tenant", "beta"); !strings.Contains(out, "already: nothing changed") {
		t.Errorf("the second import printed %q, want nothing changed", out)
	}
	if out = runOK(t, "token", "create", "--data", to, "--tenant", "beta", "--member", "alice"); !strings.HasPrefix(out, "ey") {
		t.Errorf("token create for the imported owner printed %q, want a token", out)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--data", from, "--tenant", "nope", "--out", filepath.Join(t.TempDir(), "x.zip")}, `no tenant "nope": check --tenant`},
		{[]string{"export", "--data", from, "--tenant", "acme", "--out", file}, "already exists"},
		{[]string{"import", "--data", from, "--from", file}, `a tenant "acme" exists already: import the archive under another slug (taskwire import --tenant NEWSLUG)`},
		{[]string{"export", "--data", t.TempDir(), "--tenant", "acme", "--out", file}, "no Taskwire data in"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("taskwire %s = %v, want an error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("taskwire %s = %v (stderr %q)", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// seedDataDir makes the database of data directory dir, as serve's first
// start does, with a task and a comment in acme.
func seedDataDir(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	c, err := store.Open(ctx, (&config{DataDir: dir}).ownDB(), store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	boot, err := tenancy.Bootstrap(ctx, c, tenancy.Config{TenantSlug: "acme", OwnerHandle: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := board.New(board.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	alice := identity.NewContext(ctx, identity.Caller{Tenant: "acme", Member: boot.Owner.ID, Scopes: authz.AllScopes})
	if _, err := svc.CreateTask(alice, &taskwirev1.CreateTaskRequest{Title: "Move to the new server"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddComment(alice, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "Exported first."}); err != nil {
		t.Fatal(err)
	}
}
