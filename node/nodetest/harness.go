// Package nodetest starts Taskwire in a test: a whole system in process as
// `taskwire serve` starts it (Start), a scaled-out cluster of one worker
// node and front door nodes (StartCluster), or the real taskwire binary as
// separate processes (StartProc); and it holds what those tests
// share: recorded tokens, MCP clients whose every server message is
// checked against the schema, and a log sink to wait on.
package nodetest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/services/keys"
)

// Harness is a whole Taskwire system started in process, as `taskwire
// serve` starts it, with the owner's token its first start minted.
type Harness struct {
	Sys   *node.System
	Logs  *LogSink
	Token string
	Out   string // what Setup.FirstStart printed, if set

	newSecret string // the operator secret the start created, when nothing printed it
}

// Setup is a deployment a test runs on.
type Setup struct {
	Name        string
	Postgres    bool // PostgreSQL instead of SQLite
	NATSURL     string
	Conformance bool // serve --conformance
	RateLimits  frontdoor.RateLimits

	// FirstStart, when set, is what the command does after the start (it
	// prints the welcome); the owner's token is read from what it
	// printed. Nil: the token is taken from System.Welcome directly.
	FirstStart func(ctx context.Context, sys *node.System, out io.Writer) error

	// For StartCluster only: the operator secret front doors recognise,
	// the audience the worker mints tokens for (none: it mints none), and
	// how long a retired signing key verifies (0: as in production); the
	// public URL the front doors share (default clusterURL) and the
	// worker's OAuth authorization server settings.
	Operator      *adminedge.OperatorSecret
	Audience      string
	KeysVerifyFor time.Duration
	PublicURL     string
	OAuth         node.OAuthConfig
}

// clusterURL is a cluster's public URL unless Setup.PublicURL names one:
// a name no request goes to, for the tests reach the front doors by
// address.
const clusterURL = "http://taskwire.test"

// publicURL is the public URL of a cluster on s.
func (s Setup) publicURL() string {
	if s.PublicURL != "" {
		return s.PublicURL
	}
	return clusterURL
}

// workerIssuer is the issuer of a cluster's worker, signing with ring's
// current key, when s names an audience.
func (s Setup) workerIssuer(ring *keys.Ring) *authn.Issuer {
	if s.Audience == "" {
		return nil
	}
	is, err := authn.NewIssuer(authn.IssuerConfig{Current: ring.Current, Issuer: s.publicURL(), Audience: s.Audience})
	if err != nil {
		panic(err)
	}
	return is
}

// Setups are the deployments the end-to-end tests run on: the embedded
// default always, and PostgreSQL with a real NATS server when the
// environment names them.
func Setups() []Setup {
	return []Setup{
		{Name: "sqlite+embedded-nats"},
		{Name: "postgres+nats-server", Postgres: true, NATSURL: os.Getenv("TASKWIRE_TEST_NATS")},
	}
}

// Start starts a system on s, stopped when the test ends.
func Start(t *testing.T, s Setup) *Harness {
	t.Helper()
	return StartWith(t, s, nil)
}

// StartWith is Start with the configuration changed by edit first, when
// set. The configuration is serve's with no limits at all: a data
// directory of the test's, SQLite in it, an ephemeral port.
func StartWith(t *testing.T, s Setup, edit func(*node.SystemConfig)) *Harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &LogSink{}
	cfg := systemConfig(t, s, ln, slog.New(logs))
	if edit != nil {
		edit(&cfg)
	}
	sys, err := StartSystem(cfg)
	if err != nil {
		t.Fatalf("startSystem: %v", err)
	}
	t.Cleanup(func() {
		if err := sys.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	h := &Harness{Sys: sys, Logs: logs}
	h.firstStart(t, s)
	return h
}

// systemConfig is serve's configuration for s, as the flags resolve it
// with every limit off.
func systemConfig(t *testing.T, s Setup, ln net.Listener, log *slog.Logger) node.SystemConfig {
	cfg := Config(t.TempDir(), ln, log)
	cfg.Conformance, cfg.RateLimits = s.Conformance, s.RateLimits
	if s.Postgres {
		if s.NATSURL == "" {
			t.Skip("TASKWIRE_TEST_NATS not set: skipping the PostgreSQL + NATS server deployment")
		}
		cfg.DB = storetest.DSN(t, storetest.Postgres)
		cfg.NATS = s.NATSURL
	}
	return cfg
}

// Config is the configuration `taskwire serve --data dir` resolves to on
// ln, with every limit off and a shutdown grace of 5 s.
func Config(dir string, ln net.Listener, log *slog.Logger) node.SystemConfig {
	return node.SystemConfig{
		Listener: ln, DataDir: dir, DB: "sqlite:" + filepath.Join(dir, "taskwire.db"),
		SigningKey: filepath.Join(dir, "signing.key"), PublicURL: "http://" + ln.Addr().String(),
		ShutdownGrace: 5 * time.Second, MaxTokenTTL: authn.DefaultMaxTTL,
		OperatorSecretFile: filepath.Join(dir, "operator.secret"), CreateOperatorSecret: true,
		Log: log, Version: "test",
	}
}

// StartSystem starts a system of cfg, as serve does; the caller stops it.
func StartSystem(cfg node.SystemConfig) (*node.System, error) {
	sys, err := node.NewSystem(cfg)
	if err != nil {
		return nil, err
	}
	return sys, sys.Start(context.Background())
}

// firstStart takes the owner's token of the first start: printed by
// s.FirstStart, or straight from the system.
func (h *Harness) firstStart(t *testing.T, s Setup) {
	t.Helper()
	ctx := context.Background()
	if s.FirstStart == nil {
		w, err := h.Sys.Welcome(ctx)
		if err != nil || w == nil {
			t.Fatalf("first start: welcome %v, %v", w, err)
		}
		h.Token, h.newSecret = w.Token, h.Sys.NewOperatorSecret()
		return
	}
	var out bytes.Buffer
	if err := s.FirstStart(ctx, h.Sys, &out); err != nil {
		t.Fatalf("firstStart: %v", err)
	}
	m := regexp.MustCompile(`(?m)^  (ey[\w-]+\.[\w-]+\.[\w-]+)$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("first start printed no token:\n%s", out.String())
	}
	h.Token, h.Out = m[1], out.String()
}
