package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskwire/taskwire/services/oauth"
)

// TestOAuthFlags: access tokens of OAuth clients live an hour by
// default on serve and worker, and both pass the configured clients on;
// the environment sets them, a flag wins, and nonsense is refused naming
// its flag.
func TestOAuthFlags(t *testing.T) {
	var worker nodeConfig
	worker.workerFlags(flag.NewFlagSet("worker", flag.ContinueOnError))
	c, err := parseServe()
	if err != nil {
		t.Fatal(err)
	}
	if c.OAuth.Limits.AccessTTL != oauth.DefaultAccessTTL || worker.OAuth.Limits.AccessTTL != oauth.DefaultAccessTTL {
		t.Errorf("default access TTL: serve %v, worker %v; want 1h", c.OAuth.Limits.AccessTTL, worker.OAuth.Limits.AccessTTL)
	}

	path := filepath.Join(t.TempDir(), "clients.json")
	clients := `[{"client_id": "chatgpt", "client_name": "ChatGPT", "redirect_uris": ["https://chatgpt.com/connector_platform_oauth_redirect"],
		"client_secret_sha256": "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"}]`
	if err := os.WriteFile(path, []byte(clients), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TASKWIRE_OAUTH_ACCESS_TTL", "10m")
	if c, err = parseServe("--oauth-clients", path, "--oauth-only-configured", "--oauth-access-ttl", "5s"); err != nil {
		t.Fatal(err)
	}
	got := c.system(nil, nil).OAuth
	if got.Limits.AccessTTL != 5*time.Second || !got.Clients.OnlyConfigured || len(got.Clients.Configured) != 1 || got.Clients.Configured[0].Name != "ChatGPT" {
		t.Errorf("serve's system gets OAuth %+v, want 5s, only the configured ChatGPT", got)
	}
	if c, err = parseServe(); err != nil || c.OAuth.Limits.AccessTTL != 10*time.Minute {
		t.Errorf("access TTL from the environment = %v, %v; want 10m", c.OAuth.Limits.AccessTTL, err)
	}
	worker.OAuth = got
	if wp := worker.workerProcess().OAuth; wp.Limits.AccessTTL != 5*time.Second || len(wp.Clients.Configured) != 1 {
		t.Errorf("the worker process gets OAuth %+v, want what its flags say", wp)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"client_id": "x", "redirect_uri": "https://x.example/cb"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	wantFlagRefused(t,
		[]string{"--oauth-access-ttl", "0s"},
		[]string{"--oauth-access-ttl", "3000h"},
		[]string{"--oauth-clients", bad},
		[]string{"--oauth-clients", filepath.Join(t.TempDir(), "missing.json")},
		[]string{"--oauth-only-configured"},
	)
}
