package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/keys"
	"github.com/taskwire/taskwire/services/tokens"
)

// harness is a whole Taskwire system started in process, as `taskwire
// serve` starts it, with the token its first start printed.
type harness struct {
	sys   *system
	logs  *logSink
	token string
	out   string // what the first start printed
}

type setup struct {
	name        string
	postgres    bool // PostgreSQL instead of SQLite
	natsURL     string
	conformance bool // serve --conformance
	rate        rateConfig

	// For startCluster only: the operator secret front doors recognise,
	// the audience the worker mints tokens for (none: it mints none), and
	// how long a retired signing key verifies (0: as in production).
	operator      *adminedge.OperatorSecret
	audience      string
	keysVerifyFor time.Duration
}

// workerIssuer is the issuer of a cluster's worker, signing with ring's
// current key, when s names an audience.
func (s setup) workerIssuer(ring *keys.Ring) *authn.Issuer {
	if s.audience == "" {
		return nil
	}
	is, err := authn.NewIssuer(authn.IssuerConfig{Current: ring.Current, Issuer: "http://taskwire.test", Audience: s.audience})
	if err != nil {
		panic(err)
	}
	return is
}

// setups are the deployments the end-to-end tests run on: the embedded
// default always, and PostgreSQL with a real NATS server when the
// environment names them.
func setups() []setup {
	return []setup{
		{name: "sqlite+embedded-nats"},
		{name: "postgres+nats-server", postgres: true, natsURL: os.Getenv("TASKWIRE_TEST_NATS")},
	}
}

func startHarness(t *testing.T, s setup) *harness {
	t.Helper()
	return startHarnessWith(t, s, nil)
}

// startHarnessWith is startHarness with the configuration changed by
// edit first, when set.
func startHarnessWith(t *testing.T, s setup, edit func(*config)) *harness {
	t.Helper()
	cfg := config{DataDir: t.TempDir(), ShutdownGrace: 5 * time.Second, Addr: "127.0.0.1:0", Conformance: s.conformance, Rate: s.rate,
		MaxTokenTTL: authn.DefaultMaxTTL}
	if edit != nil {
		edit(&cfg)
	}
	if s.postgres {
		if s.natsURL == "" {
			t.Skip("TASKWIRE_TEST_NATS not set: skipping the PostgreSQL + NATS server deployment")
		}
		cfg.DB = storetest.DSN(t, storetest.Postgres)
		cfg.NATS = s.natsURL
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.resolve(ln.Addr().String()); err != nil {
		t.Fatal(err)
	}
	logs := &logSink{}
	ctx := context.Background()
	sys, err := startSystem(ctx, cfg, ln, slog.New(logs))
	if err != nil {
		t.Fatalf("startSystem: %v", err)
	}
	t.Cleanup(func() {
		if err := sys.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	var out bytes.Buffer
	if err := sys.firstStart(ctx, &out); err != nil {
		t.Fatalf("firstStart: %v", err)
	}
	m := regexp.MustCompile(`(?m)^  (ey[\w-]+\.[\w-]+\.[\w-]+)$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("first start printed no token:\n%s", out.String())
	}
	return &harness{sys: sys, logs: logs, token: m[1], out: out.String()}
}

// client connects the go-sdk MCP client at 2026-07-28 with token, every
// server message validated against the schema by the returned recorder.
func (h *harness) client(t *testing.T, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, *wireRecorder) {
	t.Helper()
	rec := &wireRecorder{t: t, token: token, base: http.DefaultTransport}
	c := mcp.NewClient(&mcp.Implementation{Name: "taskwire-e2e", Version: "1.0.0"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             h.sys.Endpoint,
		HTTPClient:           &http.Client{Transport: rec},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}

// logSink keeps log records so tests can wait for the worker to report
// that a call ended.
type logSink struct {
	mu      sync.Mutex
	records []map[string]any
}

func (l *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (l *logSink) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logSink) WithGroup(string) slog.Handler            { return l }

func (l *logSink) Handle(_ context.Context, r slog.Record) error {
	rec := map[string]any{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool {
		rec[a.Key] = a.Value.String()
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, rec)
	l.mu.Unlock()
	return nil
}

// has reports whether some record has every key/value of want.
func (l *logSink) has(want map[string]string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, r := range l.records {
		for k, v := range want {
			if r[k] != v {
				continue next
			}
		}
		return true
	}
	return false
}

// waitFor polls cond until it holds, failing t after timeout.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordToken mints a token for member of tenant and records it, as
// `taskwire token create` does: workers refuse tokens they have no record
// of.
func recordToken(t testing.TB, db *ent.Client, issuer *authn.Issuer, tenant string, member int, scopes []string) string {
	t.Helper()
	store, err := tokens.New(tokens.Config{Client: db, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := store.Create(context.Background(), issuer, tokens.CreateRequest{Tenant: tenant, Member: member, Scopes: scopes, Label: t.Name()})
	if err != nil {
		t.Fatalf("recording a token: %v", err)
	}
	return token
}

// toolsListStatus POSTs a 2026-07-28 tools/list with token to url (with
// Host header host, when set) and returns the HTTP status.
func toolsListStatus(t testing.TB, url, host, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
