package archive_test

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/archive"
)

func write(t *testing.T, path string, entries map[string]string, order ...string) archive.Manifest {
	t.Helper()
	m, err := archive.WriteFile(path, "test", 1, func(w *archive.Writer) (any, error) {
		for _, name := range order {
			ew, err := w.Create(name)
			if err != nil {
				return nil, err
			}
			if _, err := io.WriteString(ew, entries[name]); err != nil {
				return nil, err
			}
		}
		return map[string]string{"tenant": "acme"}, nil
	})
	if err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	return m
}

func TestWriteThenRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.zip")
	entries := map[string]string{"tasks.jsonl": "{\"n\":1}\n{\"n\":2}\n", "keys/root.pem": "secret"}
	m := write(t, path, entries, "tasks.jsonl", "keys/root.pem")
	if e, _ := m.Entry("tasks.jsonl"); e.Records != 2 || e.Bytes != int64(len(entries["tasks.jsonl"])) {
		t.Errorf("tasks.jsonl entry = %+v, want 2 records of %d bytes", e, len(entries["tasks.jsonl"]))
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("archive mode = %v, want 0600: it may hold secrets", fi.Mode().Perm())
	}
	r, err := archive.OpenFile(path, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Verify(); err != nil {
		t.Fatalf("Verify of a whole archive: %v", err)
	}
	var meta struct{ Tenant string }
	if err := json.Unmarshal(r.Manifest().Meta, &meta); err != nil || meta.Tenant != "acme" {
		t.Errorf("Meta = %s, %v; want the tenant acme", r.Manifest().Meta, err)
	}
	for name, want := range entries {
		rc, err := r.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != want {
			t.Errorf("entry %s = %q, %v; want %q", name, got, err, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*partial")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestWriteFileRefusesExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := archive.WriteFile(path, "test", 1, func(*archive.Writer) (any, error) { return nil, nil })
	if !errors.Is(err, archive.ErrExists) {
		t.Fatalf("WriteFile over an existing file: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Errorf("existing file changed to %q", b)
	}
}

func TestFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	_, err := archive.WriteFile(path, "test", 1, func(w *archive.Writer) (any, error) {
		w.Create("x.jsonl")
		return nil, errors.New("database went away")
	})
	if err == nil {
		t.Fatal("WriteFile succeeded although fill failed")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left after a failed write: %v", left)
	}
}

// TestDamagedRefused: an archive cut short, one of another format, and one
// whose entry was changed after writing (with a valid zip CRC, as a person
// editing it would leave it) are each refused with a sentence.
func TestDamagedRefused(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.zip")
	write(t, good, map[string]string{"tasks.jsonl": "{\"n\":1}\n"}, "tasks.jsonl")
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	cut := filepath.Join(dir, "cut.zip")
	os.WriteFile(cut, raw[:len(raw)*2/3], 0o600)
	if _, err := archive.OpenFile(cut, "test"); !isDamaged(err, "cut short") {
		t.Errorf("OpenFile(truncated) = %v, want a damaged error saying it was cut short", err)
	}
	if _, err := archive.OpenFile(good, "taskwire-backup"); !isDamaged(err, "not a Taskwire taskwire-backup") {
		t.Errorf("OpenFile(other format) = %v", err)
	}

	// Rewrite the zip with the same manifest but an entry changed.
	edited := filepath.Join(dir, "edited.zip")
	rewrite(t, good, edited, "tasks.jsonl", "{\"n\":9}\n")
	r, err := archive.OpenFile(edited, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Verify(); !isDamaged(err, "tasks.jsonl does not match its checksum") {
		t.Errorf("Verify(edited) = %v, want the entry named as not matching", err)
	}
	extra := filepath.Join(dir, "extra.zip")
	rewrite(t, good, extra, "smuggled.jsonl", "{}\n")
	r2, err := archive.OpenFile(extra, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if err := r2.Verify(); !isDamaged(err, "manifest lists 1") {
		t.Errorf("Verify(extra entry) = %v", err)
	}
}

func isDamaged(err error, words string) bool {
	var d *archive.DamagedError
	return errors.As(err, &d) && strings.Contains(err.Error(), words)
}

// rewrite copies the zip at from to to, with entry name's content set to
// body (added when missing).
func rewrite(t *testing.T, from, to, name, body string) {
	t.Helper()
	zr, err := zip.OpenReader(from)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	zw := zip.NewWriter(out)
	seen := false
	for _, f := range zr.File {
		w, _ := zw.Create(f.Name)
		if f.Name == name {
			io.WriteString(w, body)
			seen = true
			continue
		}
		rc, _ := f.Open()
		io.Copy(w, rc)
		rc.Close()
	}
	if !seen {
		w, _ := zw.Create(name)
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
