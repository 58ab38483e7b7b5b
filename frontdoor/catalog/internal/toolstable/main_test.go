package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
)

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Delete a task. The person you work for is asked to confirm first.":       "Delete a task.",
		`Get one task by its ref (like "T-12"): its title. Set include_comments.`: `Get one task by its ref (like "T-12"): its title.`,
		"Call it first, e.g. before tasks_create. Then list.":                     "Call it first, e.g. before tasks_create.",
		"One sentence only.":          "One sentence only.",
		"Uses 1.5 points. Then more.": "Uses 1.5 points.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTableHasEveryTool: each tool has one row, with its toolset, scope,
// hints and the first sentence of its description; a | in a description
// cannot break the table.
func TestTableHasEveryTool(t *testing.T) {
	c, err := catalog.New(taskwirev1.SourceDescriptor, taskwirev1.ToolServices...)
	if err != nil {
		t.Fatal(err)
	}
	got := table(c.Tools())
	for _, tool := range c.Tools() {
		if n := strings.Count(got, "| `"+tool.Def.Name+"` |"); n != 1 {
			t.Errorf("the table has %d rows for %s, want 1", n, tool.Def.Name)
		}
	}
	for _, row := range []string{
		"| `tasks_delete` | tasks | write | - | destructive, idempotent, confirmed by a person | Delete a task. |",
		"| `audit_list` | audit | read | admin | read-only, idempotent |",
		"| `work_next` | work | write | - | - | Claim the next task",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("the table lacks %q:\n%s", row, got)
		}
	}
	if got := cell("a | b\nc"); got != `a \| b c` {
		t.Errorf("cell = %q, want the bar escaped and one line", got)
	}
}

// TestDocIsCurrent: the table in docs/tools.md is what the generator
// writes now, so a contract change without `go generate ./...` fails here
// too, not only in CI.
func TestDocIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "docs", "tools.md")
	copied := filepath.Join(t.TempDir(), "tools.md")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(copied); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(copied); string(now) != string(old) {
		t.Error("docs/tools.md's tools table is stale: run go generate ./... and commit the result")
	}
}
