package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// envScreenshots names a directory the browser tests save PNGs of the
// console's main pages in, for docs/images/console/:
//
//	TASKWIRE_SCREENSHOTS=$PWD/docs/images/console go test ./tests -run Browser
const envScreenshots = "TASKWIRE_SCREENSHOTS"

// screenshot saves the page the tab shows as name.png in the directory
// envScreenshots names, when it is set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(envScreenshots)
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
