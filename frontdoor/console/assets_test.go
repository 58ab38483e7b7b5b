package console

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

// htmxSHA256 is the digest VENDORED.md records for the vendored htmx.
const htmxSHA256 = "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"

func TestVendoredHTMX(t *testing.T) {
	b, err := assetFS.ReadFile("assets/vendor/htmx-2.0.11.min.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != htmxSHA256 {
		t.Errorf("sha256(htmx-2.0.11.min.js) = %s, want %s: the vendored file changed; update it only with VENDORED.md", got, htmxSHA256)
	}
	doc, _ := assetFS.ReadFile("assets/vendor/VENDORED.md")
	if !strings.Contains(string(doc), htmxSHA256) || !strings.Contains(string(doc), "0BSD") {
		t.Error("VENDORED.md does not record the digest and the licence of htmx")
	}
}

func TestAssets(t *testing.T) {
	e := newEnv(t, nil)
	page := e.do("GET", "/signin", nil).Body.String()
	for _, name := range []string{"console.css", "console.js", "vendor/htmx-2.0.11.min.js"} {
		u := assetURL(name)
		if !strings.Contains(page, u) {
			t.Errorf("the page does not link %s", u)
		}
		resp := e.do("GET", u, nil)
		if resp.Code != http.StatusOK || resp.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s = %d, Cache-Control %q; want 200, kept a year", u, resp.Code, resp.Header().Get("Cache-Control"))
		}
	}
	if resp := e.do("GET", "/assets/console.css?v=old", nil); resp.Header().Get("Cache-Control") != "no-cache" {
		t.Errorf("an old version is cached: %q", resp.Header().Get("Cache-Control"))
	}
	for _, p := range []string{"/assets/vendor/VENDORED.md", "/assets/../console.go", "/assets/nothing.js", "/assets/%2e%2e/console.go"} {
		if resp := e.do("GET", p, nil); resp.Code == http.StatusOK {
			t.Errorf("GET %s = %d, want no file", p, resp.Code)
		}
	}
}
