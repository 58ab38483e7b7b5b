package markers

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSplice(t *testing.T) {
	begin, end := Begin("tools"), End("tools")
	doc := "# T\n\n" + begin + "\nold table\n" + end + "\n\nafter\n"
	got, err := Splice([]byte(doc), "tools", "| new |\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# T\n\n" + begin + "\n| new |\n" + end + "\n\nafter\n"; string(got) != want {
		t.Errorf("Splice = %q, want %q", got, want)
	}
	for _, bad := range []string{"no markers", end + begin, begin + " only", Begin("flags") + "\n" + End("flags")} {
		if _, err := Splice([]byte(bad), "tools", "x"); err == nil {
			t.Errorf("Splice(%q) = nil error, want one about the markers", bad)
		}
	}
}

// TestRewrite: the page at path gets the new body between its markers.
func TestRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte("# P\n"+Begin("x")+"\nold\n"+End("x")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Rewrite(path, "x", "new\n"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "# P\n"+Begin("x")+"\nnew\n"+End("x")+"\n" {
		t.Errorf("page after Rewrite = %q", got)
	}
	if err := Rewrite(filepath.Join(t.TempDir(), "missing.md"), "x", "new\n"); err == nil {
		t.Error("Rewrite of a missing page = nil error, want one")
	}
}
