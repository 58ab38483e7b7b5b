package tests

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is the browser the console's tests drive: Debian's
// chromium package. Nothing in the tests downloads a browser; CI installs
// the package (.ci/run) and sets envBrowser.
const chromiumPath = "/usr/bin/chromium"

// envBrowser, set to 1, makes a missing browser fail the browser tests
// instead of skipping them, so that CI cannot pass without running them.
const envBrowser = "TASKWIRE_TEST_BROWSER"

// browserTimeout bounds one browser test: every page load, wait and
// script of it.
const browserTimeout = 90 * time.Second

// chromiumFlags are the only flags the browser starts with (beside the
// user data directory and the pipe chromedp talks over): headless, no
// sandbox (CI runs as root), and nothing that reaches the network on its
// own, so the tests talk to loopback only.
var chromiumFlags = []string{
	"headless", "no-sandbox", "disable-gpu", "no-first-run",
	"disable-background-networking", "disable-component-update", "disable-sync",
}

// startChromium starts a fresh Chromium with a profile of its own for t and
// returns a context of its first tab, ended when t ends. It skips t when
// the browser is missing, unless envBrowser asks for the browser tests.
func startChromium(t *testing.T) context.Context {
	t.Helper()
	requireBrowser(t, chromiumPath)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(chromiumPath), chromedp.UserDataDir(t.TempDir())}
	for _, f := range chromiumFlags {
		opts = append(opts, chromedp.Flag(f, true))
	}
	ctx, cancelTime := context.WithTimeout(context.Background(), browserTimeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelTab := chromedp.NewContext(actx)
	// The cleanups run before t.TempDir removes the profile: the browser
	// has exited by then.
	t.Cleanup(func() { cancelTab(); cancelAlloc(); cancelTime() })
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	return bctx
}

// requireBrowser skips t when the browser at path is not installed, or
// fails it when envBrowser says the browser tests must run.
func requireBrowser(t testing.TB, path string) {
	t.Helper()
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return
	case !errors.Is(err, fs.ErrNotExist):
		t.Fatalf("browser %s: %v", path, err)
	case os.Getenv(envBrowser) == "1":
		t.Fatalf("%s=1 but %s is missing: install Debian's chromium package (apt-get install chromium)", envBrowser, path)
	default:
		t.Skipf("%s is missing: skipping the browser tests (apt-get install chromium runs them; %s=1 makes this a failure)", path, envBrowser)
	}
}

// ended is a testing.TB that records how requireBrowser ended a test
// instead of ending it.
type ended struct {
	testing.TB
	how string
}

func (e *ended) Helper()               {}
func (e *ended) Skipf(string, ...any)  { e.how = "skip"; panic(e) }
func (e *ended) Fatalf(string, ...any) { e.how = "fail"; panic(e) }
func (e *ended) run(f func(testing.TB)) (how string) {
	defer func() {
		if r := recover(); r != nil && r != e {
			panic(r)
		}
		how = e.how
	}()
	f(e)
	return
}

// TestRequireBrowser: without the browser the tests skip, unless
// envBrowser asks for them, as CI does; then they fail.
func TestRequireBrowser(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "chromium")
	for _, tc := range []struct{ env, path, want string }{
		{"", missing, "skip"},
		{"1", missing, "fail"},
		{"1", os.Args[0], ""}, // any file that exists
	} {
		t.Setenv(envBrowser, tc.env)
		e := &ended{TB: t}
		if got := e.run(func(tb testing.TB) { requireBrowser(tb, tc.path) }); got != tc.want {
			t.Errorf("requireBrowser(%s=%q, %s) ended the test with %q, want %q", envBrowser, tc.env, tc.path, got, tc.want)
		}
	}
}
