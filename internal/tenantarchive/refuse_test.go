package tenantarchive_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasktitletoken"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenantarchive"
)

// TestImportTwice: importing the same archive again changes nothing and
// says so; under another slug it is a second tenant.
func TestImportTwice(t *testing.T) {
	src := storetest.Open(t, storetest.SQLite)
	seed(t, src)
	a := exportFile(t, src, "acme", filepath.Join(t.TempDir(), "acme.zip"))
	dst := storetest.Open(t, storetest.SQLite)
	if rep := importFile(t, dst, a.path, ""); rep.AlreadyImported || rep.Records[tenantarchive.TasksEntry] != 4 {
		t.Fatalf("the first import = %+v, want 4 tasks loaded", rep)
	}
	if got, want := titleTokens(t, dst, "acme"), titleTokens(t, src, "acme"); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the imported tasks' title tokens are %v, want %v, as their creation wrote them", got, want)
	}
	before := rowCounts(t, dst)
	rep := importFile(t, dst, a.path, "")
	if !rep.AlreadyImported || rep.Tenant != "acme" || rep.Records != nil {
		t.Errorf("the second import = %+v, want acme already imported, nothing loaded", rep)
	}
	if after := rowCounts(t, dst); !maps.Equal(before, after) {
		t.Errorf("the second import changed the database: %v, then %v", before, after)
	}
	if rep := importFile(t, dst, a.path, "acme-copy"); rep.AlreadyImported || rep.Tenant != "acme-copy" {
		t.Errorf("the import as acme-copy = %+v, want a new tenant", rep)
	}
	copied := exportFile(t, dst, "acme-copy", filepath.Join(t.TempDir(), "copy.zip"))
	if copied.meta.Tenant.Slug != "acme-copy" {
		t.Errorf("the copy's slug is %q, want acme-copy", copied.meta.Tenant.Slug)
	}
	copied.meta.Tenant.Slug = "acme"
	sameRecords(t, "the import as acme-copy", a, copied)
}

// TestImportRefusesTakenSlug: a tenant of the archive's slug that was not
// imported from it is left alone, and the refusal names --tenant.
func TestImportRefusesTakenSlug(t *testing.T) {
	src := storetest.Open(t, storetest.SQLite)
	seed(t, src)
	a := exportFile(t, src, "acme", filepath.Join(t.TempDir(), "acme.zip"))
	before := rowCounts(t, src)
	_, err := importPath(src, a.path, "")
	if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(err.Error(), "--tenant NEWSLUG") {
		t.Errorf("Import into the database holding acme = %v, want a Conflict naming --tenant NEWSLUG", err)
	}
	if _, err := importPath(src, a.path, "Not A Slug"); domainerr.KindOf(err) != domainerr.Invalid {
		t.Errorf("Import as %q = %v, want Invalid", "Not A Slug", err)
	}
	if after := rowCounts(t, src); !maps.Equal(before, after) {
		t.Errorf("a refused import changed the database: %v, then %v", before, after)
	}
}

// TestImportRefusesDamagedArchives: an archive edited after it was
// written, cut short, of another format version, or holding a record
// that names what it does not hold is refused with a sentence, and the
// database is left as it was, even when the bad record comes after
// many good ones.
func TestImportRefusesDamagedArchives(t *testing.T) {
	src := storetest.Open(t, storetest.SQLite)
	seed(t, src)
	dir := t.TempDir()
	good := exportFile(t, src, "acme", filepath.Join(dir, "good.zip")).path
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.zip")
	if err := os.WriteFile(cut, raw[:len(raw)*2/3], 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		damaged    bool   // an *archive.DamagedError, else an Invalid domain error
		want       string // in the error
	}{
		{"edited", tamper(t, good, dir), true, "tasks.jsonl does not match its checksum"},
		{"cut short", cut, true, "cut short"},
		{"format version 2", rewrite(t, good, filepath.Join(dir, "v2.zip"), 2, nil), false, "format version 2"},
		{"a record naming no member", rewrite(t, good, filepath.Join(dir, "bad.zip"), tenantarchive.Version, func(name string, data []byte) []byte {
			if name != tenantarchive.CommentsEntry {
				return data
			}
			return bytes.Replace(data, []byte(`"author":"alice"`), []byte(`"author":"nobody"`), 1)
		}), false, `comments.jsonl, record 3: it names member "nobody", which members.jsonl does not hold`},
		{"a task listed twice", rewrite(t, good, filepath.Join(dir, "twice.zip"), tenantarchive.Version, func(name string, data []byte) []byte {
			if name != tenantarchive.TasksEntry {
				return data
			}
			first, _, _ := bytes.Cut(data, []byte("\n"))
			return append(data, append(first, '\n')...)
		}), false, "tasks.jsonl holds a record this database refuses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := storetest.Open(t, storetest.SQLite)
			before := rowCounts(t, dst)
			_, err := importPath(dst, tc.path, "")
			var damaged *archive.DamagedError
			switch {
			case err == nil:
				t.Fatal("Import succeeded, want a refusal")
			case tc.damaged != errors.As(err, &damaged), !tc.damaged && domainerr.KindOf(err) != domainerr.Invalid:
				t.Errorf("Import = %T %v, want a damaged archive: %v", err, err, tc.damaged)
			case strings.Count(err.Error(), tc.want) != 1:
				t.Errorf("Import = %v, want it to say %q, once", err, tc.want)
			}
			if after := rowCounts(t, dst); !maps.Equal(before, after) {
				t.Errorf("a refused import changed the database: %v, then %v", before, after)
			}
		})
	}
}

// tamper copies the archive src with one byte of tasks.jsonl changed and
// its manifest left as it was.
func tamper(t *testing.T, src, dir string) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		data := readZipFile(t, f)
		if f.Name == tenantarchive.TasksEntry {
			data = bytes.Replace(data, []byte("Ship the importer"), []byte("Ship the imported"), 1)
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tampered.zip")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rewrite writes the archive src again at dst, as a writer of format
// version would, with each entry passed through edit (when not nil): a
// whole archive whose checksums match what it holds.
func rewrite(t *testing.T, src, dst string, version int, edit func(name string, data []byte) []byte) string {
	t.Helper()
	r, err := archive.OpenFile(src, tenantarchive.Format)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = archive.WriteFile(dst, tenantarchive.Format, version, func(w *archive.Writer) (any, error) {
		for _, e := range r.Manifest().Entries {
			rc, err := r.Open(e.Name)
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			if edit != nil {
				data = edit(e.Name, data)
			}
			ew, err := w.Create(e.Name)
			if err != nil {
				return nil, err
			}
			ew.Write(data)
		}
		return r.Manifest().Meta, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func readZipFile(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// rowCounts counts the rows of every table an import writes to.
func rowCounts(t *testing.T, c *ent.Client) map[string]int {
	t.Helper()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	counts := map[string]int{}
	for name, count := range map[string]func(context.Context) (int, error){
		"tenants": c.Tenant.Query().Count, "members": c.Member.Query().Count, "boards": c.Board.Query().Count,
		"tasks": c.Task.Query().Count, "title tokens": c.TaskTitleToken.Query().Count, "links": c.TaskLink.Query().Count,
		"comments": c.Comment.Query().Count, "notes": c.ContextNote.Query().Count, "work": c.WorkItem.Query().Count,
		"activity": c.Activity.Query().Count, "audit": c.AuditEvent.Query().Count,
	} {
		n, err := count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		counts[name] = n
	}
	return counts
}

// titleTokens returns the title index of the tenant slug: each task's
// tokens, with the count of its words, by ref.
func titleTokens(t *testing.T, c *ent.Client, slug string) map[string][]string {
	t.Helper()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	rows, err := c.TaskTitleToken.Query().Where(tasktitletoken.HasTaskWith(task.HasTenantWith(tenant.Slug(slug)))).WithTask().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range rows {
		ref := fmt.Sprintf("T-%d", r.Edges.Task.Number)
		out[ref] = append(out[ref], fmt.Sprintf("%s/%d", r.Token, r.Words))
	}
	for _, tokens := range out {
		slices.Sort(tokens)
	}
	if len(out) == 0 {
		t.Fatalf("tenant %s has no title tokens", slug)
	}
	return out
}
