package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

var update = flag.Bool("update", false, "rewrite the tool snapshots in testdata/tools")

// TestSnapshots keeps one JSON file per tool definition, as tools/list
// shows it. A tool whose definition changed, or that has no snapshot, or a
// snapshot whose tool is gone, fails the test until
// `go test ./frontdoor/catalog -update` is run and the change reviewed.
func TestSnapshots(t *testing.T) {
	dir := filepath.Join("testdata", "tools")
	c := newCatalog(t)
	if *update {
		if err := writeSnapshots(dir, c.Tools()); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range checkSnapshots(dir, c.Tools()) {
		t.Error(p)
	}
}

// TestSnapshotsCatchDrift: the check fails for a missing, a stale and an
// orphan snapshot, and passes once they are rewritten.
func TestSnapshotsCatchDrift(t *testing.T) {
	dir := t.TempDir()
	tools := newCatalog(t).Tools()[:3]
	if err := writeSnapshots(dir, tools); err != nil {
		t.Fatal(err)
	}
	if p := checkSnapshots(dir, tools); len(p) != 0 {
		t.Fatalf("fresh snapshots: %q, want no problems", p)
	}
	missing, stale := tools[0].Def.Name, tools[1].Def.Name
	must(t, os.Remove(filepath.Join(dir, missing+".json")))
	must(t, os.WriteFile(filepath.Join(dir, stale+".json"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "tasks_frob.json"), []byte("{}\n"), 0o644))
	got := strings.Join(checkSnapshots(dir, tools), "\n")
	for _, want := range []string{missing + " has no snapshot", stale + " differs from", "tasks_frob.json has no tool"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems:\n%s\nwant one saying %q", got, want)
		}
	}
	if err := writeSnapshots(dir, tools); err != nil {
		t.Fatal(err)
	}
	if p := checkSnapshots(dir, tools); len(p) != 0 {
		t.Errorf("after rewriting: %q, want no problems", p)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot is a tool's definition as its snapshot file holds it.
func snapshot(def mcp.Tool) ([]byte, error) {
	b, err := json.MarshalIndent(def, "", "  ")
	return append(b, '\n'), err
}

// writeSnapshots writes one snapshot per tool into dir and removes the
// snapshots of tools that are gone.
func writeSnapshots(dir string, tools []*catalog.Tool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, tool := range tools {
		b, err := snapshot(tool.Def)
		if err != nil {
			return err
		}
		keep[tool.Def.Name+".json"] = true
		if err := os.WriteFile(filepath.Join(dir, tool.Def.Name+".json"), b, 0o644); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !keep[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSnapshots compares the snapshots in dir with tools and returns a
// sentence per problem: a tool without a snapshot, a snapshot that differs
// from its tool (with the diff) and a file with no tool.
func checkSnapshots(dir string, tools []*catalog.Tool) []string {
	var problems []string
	want := map[string]bool{}
	for _, tool := range tools {
		name := tool.Def.Name + ".json"
		want[name] = true
		got, err := snapshot(tool.Def)
		if err != nil {
			problems = append(problems, fmt.Sprintf("tool %s: %v", tool.Def.Name, err))
			continue
		}
		path := filepath.Join(dir, name)
		old, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, fmt.Sprintf("tool %s has no snapshot; run go test ./frontdoor/catalog -update and review it", tool.Def.Name))
			continue
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if !bytes.Equal(old, got) {
			diff := cmp.Diff(strings.Split(string(old), "\n"), strings.Split(string(got), "\n"))
			problems = append(problems, fmt.Sprintf("tool %s differs from %s; run go test ./frontdoor/catalog -update and review the diff (-snapshot +tool):\n%s", tool.Def.Name, path, diff))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return append(problems, fmt.Sprintf("reading the snapshots: %v", err))
	}
	for _, e := range entries {
		if !want[e.Name()] {
			problems = append(problems, fmt.Sprintf("snapshot %s has no tool; run go test ./frontdoor/catalog -update to remove it", e.Name()))
		}
	}
	return problems
}
