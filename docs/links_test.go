package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// link is a Markdown link's target: ](target) or ](target "title").
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// pages are the Markdown files whose links must resolve, from the module
// root.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{"README.md", "CONTRIBUTING.md", "bench/README.md"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			out = append(out, filepath.Join("docs", path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRelativeLinksResolve(t *testing.T) {
	root := ".."
	for _, page := range pages(t) {
		text, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		for _, target := range links(string(text)) {
			if problem := check(root, page, target); problem != "" {
				t.Errorf("%s: link %s: %s", page, target, problem)
			}
		}
	}
}

// links are the link targets of a Markdown text outside fenced code,
// leaving out absolute URLs.
func links(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			if !strings.Contains(m[1], "://") && !strings.HasPrefix(m[1], "mailto:") {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// check says what is wrong with target, a link of page, or "".
func check(root, page, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	file := filepath.Join(root, page)
	if path != "" {
		file = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
	}
	info, err := os.Stat(file)
	if err != nil {
		return "no such file"
	}
	if anchor == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(file, ".md") {
		return "an anchor into something that is not a Markdown page"
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if !headings(string(text))[anchor] {
		return "no heading with that anchor"
	}
	return ""
}

// headings are the anchors GitHub makes for the headings of a page.
func headings(text string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "#") {
			out[slug(strings.TrimLeft(line, "#"))] = true
		}
	}
	return out
}

// slug is GitHub's anchor of a heading: lower case, spaces to dashes,
// other punctuation dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		" Tokens, revocation and roles":              "tokens-revocation-and-roles",
		" Connecting through stdio: taskwire-bridge": "connecting-through-stdio-taskwire-bridge",
		" Import, progress and cancellation":         "import-progress-and-cancellation",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
