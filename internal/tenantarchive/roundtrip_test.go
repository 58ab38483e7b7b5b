package tenantarchive_test

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenantarchive"
)

// TestExportImportAcrossDatabases exports acme from SQLite, imports it
// into a new database of each backend, exports it from there, imports
// that into a new SQLite database and exports it again: the three
// archives hold the same records, line for line, every kind and field
// (history and audit trail included). Pages and batches are small, so
// the few rows seeded span many of each.
func TestExportImportAcrossDatabases(t *testing.T) {
	defer tenantarchive.SmallPages()()
	for _, middle := range storetest.Backends() {
		t.Run("sqlite→"+string(middle)+"→sqlite", func(t *testing.T) {
			via := storetest.Open(t, middle) // skips PostgreSQL when it is not configured
			src := storetest.Open(t, storetest.SQLite)
			seed(t, src)
			dir := t.TempDir()
			first := exportFile(t, src, "acme", filepath.Join(dir, "first.zip"))
			checkSeeded(t, first)

			importFile(t, via, first.path, "")
			second := exportFile(t, via, "acme", filepath.Join(dir, "second.zip"))
			last := storetest.Open(t, storetest.SQLite)
			importFile(t, last, second.path, "")
			third := exportFile(t, last, "acme", filepath.Join(dir, "third.zip"))

			sameRecords(t, "the import into "+string(middle), first, second)
			sameRecords(t, "the import back into sqlite", first, third)
			useImported(t, via, "acme")
		})
	}
}

// exported is an archive written by a test, read back whole.
type exported struct {
	path    string
	meta    tenantarchive.Meta
	entries map[string][]string // lines by entry
}

func exportFile(t *testing.T, c *ent.Client, slug, path string) exported {
	t.Helper()
	m, err := tenantarchive.ExportFile(context.Background(), c, slug, path)
	if err != nil {
		t.Fatalf("ExportFile(%s) = %v", slug, err)
	}
	for _, name := range tenantarchive.Entries {
		if _, ok := m.Entry(name); !ok {
			t.Errorf("the manifest lists no %s", name)
		}
	}
	return readArchive(t, path)
}

func readArchive(t *testing.T, path string) exported {
	t.Helper()
	r, err := archive.OpenFile(path, tenantarchive.Format)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := exported{path: path, entries: map[string][]string{}}
	if err := json.Unmarshal(r.Manifest().Meta, &e.meta); err != nil {
		t.Fatal(err)
	}
	for _, name := range tenantarchive.Entries {
		rc, err := r.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(rc)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			e.entries[name] = append(e.entries[name], sc.Text())
		}
		rc.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return e
}

func importFile(t *testing.T, c *ent.Client, path, slug string) tenantarchive.Report {
	t.Helper()
	rep, err := importPath(c, path, slug)
	if err != nil {
		t.Fatalf("Import(%s) = %v", filepath.Base(path), err)
	}
	return rep
}

func importPath(c *ent.Client, path, slug string) (tenantarchive.Report, error) {
	r, err := archive.OpenFile(path, tenantarchive.Format)
	if err != nil {
		return tenantarchive.Report{}, err
	}
	defer r.Close()
	return tenantarchive.Import(context.Background(), c, r, tenantarchive.Options{Tenant: slug})
}

// sameRecords fails unless got holds want's records, in order, and
// want's tenant.
func sameRecords(t *testing.T, what string, want, got exported) {
	t.Helper()
	if got.meta.Tenant != want.meta.Tenant {
		t.Errorf("after %s, the tenant is %+v, want %+v", what, got.meta.Tenant, want.meta.Tenant)
	}
	if got.meta.ExportID == want.meta.ExportID {
		t.Errorf("two exports share the export id %s", got.meta.ExportID)
	}
	for _, name := range tenantarchive.Entries {
		w, g := want.entries[name], got.entries[name]
		for i := range max(len(w), len(g)) {
			switch {
			case i >= len(g):
				t.Errorf("after %s, %s lacks record %d: %s", what, name, i+1, w[i])
			case i >= len(w):
				t.Errorf("after %s, %s has an extra record %d: %s", what, name, i+1, g[i])
			case w[i] != g[i]:
				t.Errorf("after %s, %s record %d =\n%s\nwant\n%s", what, name, i+1, g[i], w[i])
			}
		}
	}
}

// checkSeeded fails unless e holds what seed made in acme, by name and
// never by id, and nothing of globex.
func checkSeeded(t *testing.T, e exported) {
	t.Helper()
	counts := map[string]int{
		tenantarchive.MembersEntry: 4, tenantarchive.BoardsEntry: 2, tenantarchive.TasksEntry: 4, tenantarchive.LinksEntry: 2,
		tenantarchive.CommentsEntry: 4, tenantarchive.ContextNotesEntry: 2, tenantarchive.WorkItemsEntry: 3, tenantarchive.AuditEventsEntry: 4,
	}
	for name, want := range counts {
		if got := len(e.entries[name]); got != want {
			t.Errorf("%s has %d records, want %d:\n%s", name, got, want, strings.Join(e.entries[name], "\n"))
		}
	}
	for _, want := range []string{
		`"handle":"claude","display_name":"claude","kind":"assistant","role":"member","sponsor":"alice"`,
		`"ref":"T-1","board":"main","title":"Ship the importer","note":"All <kinds> & more","lane":"doing","kind":"task","size":"m","assignees":["bob","claude"]`,
		`"ref":"T-2"`, `"text_authors":["bob","alice"]`,
		`"number":1,"task":"T-1","author":"bob","body":"Started on the reader; half done.","version":2`,
		`"task":"T-1","board":"main","state":"claimed"`, `"holder":"claude"`, `"state":"completed"`, `"test_status":"passed"`, `"deleted_at":`, `"removed_at":`,
		`"action":"comment.edited"`, `"action":"work.claimed"`,
		`"member":"claude","member_handle":"claude","member_kind":"assistant","sponsor_handle":"alice"`,
		`"member_handle":"operator","member_kind":"operator"`,
	} {
		if !e.contains(want) {
			t.Errorf("no record holds %s", want)
		}
	}
	for _, never := range []string{"globex", "gina", `"id"`, `"tenant_id"`, `"member_id"`, `"task_id"`, `"board_id"`, "lease_secret", "lease_token", "account"} {
		if e.contains(never) {
			t.Errorf("a record holds %q, which an export of acme must not", never)
		}
	}
	if e.meta.Tenant.Slug != "acme" || e.meta.Tenant.Name != "Acme" || e.meta.Tenant.TaskSeq != 4 || e.meta.Tenant.CommentSeq != 4 {
		t.Errorf("the manifest's tenant is %+v, want acme, Acme, 4 tasks and 4 comments handed out", e.meta.Tenant)
	}
}

func (e exported) contains(s string) bool {
	for _, lines := range e.entries {
		if slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, s) }) {
			return true
		}
	}
	return false
}
