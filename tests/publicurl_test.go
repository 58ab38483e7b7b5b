package tests

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestRestartOnAnotherAddress: tokens are bound to the public URL. A
// restart on another address says at start that live tokens were issued
// for the old URL, naming it and --public-url, and a call with such a
// token is refused with a 401 that says the same.
func TestRestartOnAnotherAddress(t *testing.T) {
	dir := t.TempDir()
	start := func() (*node.System, *nodetest.LogSink) {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		logs := &nodetest.LogSink{}
		sys, err := nodetest.StartSystem(nodetest.Config(dir, ln, slog.New(logs)))
		if err != nil {
			t.Fatalf("startSystem: %v", err)
		}
		return sys, logs
	}
	first, _ := start()
	welcome, err := first.Welcome(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	token := welcome.Token
	oldURL := first.Config().PublicURL
	first.Stop(context.Background())

	moved, logs := start()
	defer moved.Stop(context.Background())
	if !logs.Has(map[string]string{"issued_for": oldURL, "tokens": "1", "public_url": moved.Config().PublicURL,
		"msg": "live tokens were issued for another public URL: they are refused here; start with --public-url " + oldURL + " to keep them, or mint new ones"}) {
		t.Errorf("a start on another address logged nothing about the tokens issued for %s", oldURL)
	}
	code, why := nodetest.Refusal(t, moved.Endpoint, token)
	want := "the token was issued for another server URL, " + oldURL + ", and this server is " + moved.Config().PublicURL +
		": use the token with " + oldURL + ", or start this server with --public-url " + oldURL
	if code != http.StatusUnauthorized || why != want {
		t.Errorf("the old URL's token = %d %q, want 401 %q", code, why, want)
	}
}
