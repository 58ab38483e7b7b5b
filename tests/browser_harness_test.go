package tests

import (
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// consoleCSP is the console's Content-Security-Policy, for the pages the
// harness tests serve itself.
const consoleCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// harnessPages are two pages under the console's CSP: one axe finds
// nothing wrong with, one with an image without text and a button without
// a name, which a screen reader cannot tell about.
var harnessPages = map[string]string{
	"/clean":  `<!doctype html><html lang="en"><head><title>Board</title></head><body><main><h1>Board</h1><button type="button">Move</button></main></body></html>`,
	"/broken": `<!doctype html><html lang="en"><head><title>Board</title></head><body><main><h1>Board</h1><img src="/x.png"><button type="button"></button></main></body></html>`,
}

// TestBrowserHarness: the browser starts with exactly the flags the
// tests promise and a profile of its own, and axe, injected into a page
// under the console's CSP, reports the violations a page has and none on
// a page without.
func TestBrowserHarness(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", consoleCSP)
		fmt.Fprint(w, harnessPages[r.URL.Path])
	}))
	defer srv.Close()
	ctx := startChromium(t)

	t.Run("flags", func(t *testing.T) {
		// The package's launcher adds flags of its own before ours; what
		// the tests pass starts at the profile directory.
		args := browserArgs(t, ctx)
		i := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "--user-data-dir=") })
		if i < 0 || !strings.HasPrefix(args[i], "--user-data-dir="+os.TempDir()) {
			t.Fatalf("browser args = %q, want a --user-data-dir of the test's", args)
		}
		var want []string
		for _, f := range chromiumFlags {
			want = append(want, "--"+f)
		}
		want = append(want, "--remote-debugging-pipe") // chromedp's own way in
		var got []string
		for _, a := range args[i+1:] {
			if strings.HasPrefix(a, "--") {
				got = append(got, a)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("browser flags = %q, want %q", got, want)
		}
	})
	t.Run("axe", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/clean")); err != nil {
			t.Fatal(err)
		}
		checkAxe(t, ctx, "/clean")
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/broken")); err != nil {
			t.Fatal(err)
		}
		vs, err := axeViolations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, v := range vs {
			ids = append(ids, v.ID)
		}
		slices.Sort(ids)
		if want := []string{"button-name", "image-alt"}; !slices.Equal(ids, want) {
			t.Errorf("axe on /broken = %v, want %v", vs, want)
		}
	})
	t.Run("screenshot", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv(envScreenshots, dir)
		screenshot(t, ctx, "broken")
		f, err := os.Open(filepath.Join(dir, "broken.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		if err != nil || cfg.Width != 1280 {
			t.Errorf("broken.png: %v wide, %v; want a PNG as wide as the window (1280)", cfg.Width, err)
		}
	})
}

// browserArgs is the command line of the browser process behind ctx.
func browserArgs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	pid := chromedp.FromContext(ctx).Browser.Process().Pid
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Skipf("reading the browser's command line: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
}
