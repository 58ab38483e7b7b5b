package tests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeFile is axe-core, vendored with its version and sha256 in
// testdata/axe/VENDORED.md.
const axeFile = "testdata/axe/axe.min.js"

// axeRun runs axe on the whole document and keeps the violations a person
// using a screen reader or a keyboard cannot get around (impact serious or
// critical), with the elements that show each.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" "))})))`

// axeViolation is one rule axe found broken, and where.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

func (v axeViolation) String() string {
	return fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "))
}

var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile(axeFile)
	return string(b), err
})

// checkAxe fails t with every serious or critical accessibility violation
// axe finds on the page the tab shows now, named page in the failure.
func checkAxe(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	vs, err := axeViolations(ctx)
	if err != nil {
		t.Fatalf("axe on %s: %v", page, err)
	}
	for _, v := range vs {
		t.Errorf("axe on %s: %v", page, v)
	}
}

// axeViolations injects axe into the page the tab shows (through the
// DevTools protocol, which the page's CSP does not govern) and runs it.
func axeViolations(ctx context.Context) ([]axeViolation, error) {
	src, err := axeSource()
	if err != nil {
		return nil, err
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
		return nil, fmt.Errorf("injecting axe: %w", err)
	}
	return chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
}

// TestAxeVendored: the vendored axe is the file VENDORED.md names, so an
// update cannot skip the record of what was copied and under which
// licence.
func TestAxeVendored(t *testing.T) {
	src, err := axeSource()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("testdata/axe/VENDORED.md")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(src))
	named := ""
	if m := regexp.MustCompile("sha256 of `axe.min.js` \\| `([0-9a-f]{64})`").FindSubmatch(doc); m != nil {
		named = string(m[1])
	}
	if want := hex.EncodeToString(sum[:]); named != want {
		t.Errorf("VENDORED.md names sha256 %q for axe.min.js, want %s (the file's)", named, want)
	}
	version := regexp.MustCompile(`^/\*! axe v(\S+)`).FindStringSubmatch(src)
	if version == nil || !strings.Contains(string(doc), "`axe-core` "+version[1]) {
		t.Errorf("VENDORED.md does not name the file's version %v", version)
	}
	if !strings.Contains(string(doc), "MPL-2.0") || !strings.Contains(src, "Mozilla Public") {
		t.Error("the MPL-2.0 licence is not recorded beside axe.min.js, or its notice left the file")
	}
}
