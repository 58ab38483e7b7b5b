package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
)

// TestRestartOnAnotherAddress: tokens are bound to the public URL. A
// restart on another address says at start that live tokens were issued
// for the old URL, naming it and --public-url, and a call with such a
// token is refused with a 401 that says the same.
func TestRestartOnAnotherAddress(t *testing.T) {
	dir := t.TempDir()
	start := func() (*system, *logSink) {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cfg := config{DataDir: dir, Addr: ln.Addr().String(), ShutdownGrace: 5 * time.Second, MaxTokenTTL: authn.DefaultMaxTTL}
		if err := cfg.resolve(cfg.Addr); err != nil {
			t.Fatal(err)
		}
		logs := &logSink{}
		sys, err := startSystem(context.Background(), cfg, ln, slog.New(logs))
		if err != nil {
			t.Fatalf("startSystem: %v", err)
		}
		return sys, logs
	}
	first, _ := start()
	var out bytes.Buffer
	if err := first.firstStart(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	token := regexp.MustCompile(`(?m)^  (ey\S+)$`).FindStringSubmatch(out.String())[1]
	oldURL := first.cfg.PublicURL
	first.Close(context.Background())

	moved, logs := start()
	defer moved.Close(context.Background())
	if !logs.has(map[string]string{"issued_for": oldURL, "tokens": "1", "public_url": moved.cfg.PublicURL,
		"msg": "live tokens were issued for another public URL: they are refused here; start with --public-url " + oldURL + " to keep them, or mint new ones"}) {
		t.Errorf("a start on another address logged nothing about the tokens issued for %s", oldURL)
	}
	code, why := refusal(t, moved.Endpoint, token)
	want := "the token was issued for another server URL, " + oldURL + ", and this server is " + moved.cfg.PublicURL +
		": use the token with " + oldURL + ", or start this server with --public-url " + oldURL
	if code != http.StatusUnauthorized || why != want {
		t.Errorf("the old URL's token = %d %q, want 401 %q", code, why, want)
	}
}
