package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/events/natstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/keys"
)

// cluster is a scaled-out Taskwire in one test: one worker node and two
// front door nodes, each with its own NATS connection to one NATS server,
// behind one public URL, as behind a load balancer.
type cluster struct {
	DB       *ent.Client
	token    string
	endpoint string   // the public endpoint tokens are bound to
	fronts   []string // each front door's host:port
	logs     *logSink
	natsURL  string
	owner    int // the owner's member id
	issuer   *authn.Issuer
	keys     *keys.Ring          // the worker's keyring
	front    frontdoorNodeConfig // what every front door shares
}

// addFront starts one more front door, with its own NATS connection, as a
// deployment that scales out or replaces a replica, and returns its
// host:port once it takes requests.
func (c *cluster) addFront(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.front
	cfg.Listener, cfg.NATS = ln, natstest.Connect(t, c.natsURL)
	f, err := startFrontdoorNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.stop(context.Background()) })
	c.fronts = append(c.fronts, ln.Addr().String())
	c.endpoint = f.endpoint
	return ln.Addr().String()
}

func startCluster(t testing.TB, s setup) *cluster {
	t.Helper()
	ctx := context.Background()
	backend, natsURL := storetest.SQLite, s.natsURL
	if s.postgres {
		if natsURL == "" {
			t.Skip("TASKWIRE_TEST_NATS not set: skipping the PostgreSQL + NATS server deployment")
		}
		backend = storetest.Postgres
	}
	if natsURL == "" {
		natsURL = natstest.Start(t)
	}
	db, err := store.Open(ctx, storetest.DSN(t, backend))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key, _, err := authn.LoadOrCreateKey(t.TempDir() + "/signing.key")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{DB: db, logs: &logSink{}, natsURL: natsURL}
	log := slog.New(c.logs)
	workerNATS := natstest.Connect(t, natsURL)
	bus, err := events.New(workerNATS)
	if err != nil {
		t.Fatal(err)
	}
	c.keys, err = keys.New(keys.Config{Client: db, Root: key, Events: bus, VerifyFor: s.keysVerifyFor, Logger: log})
	if err == nil {
		err = c.keys.Init(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}

	w, err := startWorkerNode(workerNodeConfig{
		DB: db, NATS: workerNATS, InternalKey: "cluster-key", Listen: "127.0.0.1:0", Drain: 5 * time.Second, Log: log,
		Keys: c.keys, Issuer: s.workerIssuer(c.keys),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop(context.Background()) })

	c.front = frontdoorNodeConfig{
		PublicURL: "http://taskwire.test", Worker: "passthrough:///" + w.addr, InternalKey: "cluster-key", Key: key, Log: log,
		Operator: s.operator,
	}
	c.addFront(t)
	c.addFront(t)

	res, err := tenancy.Bootstrap(ctx, db, tenancy.Config{TenantSlug: "acme", OwnerHandle: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	c.owner = res.Owner.ID
	issuer, err := authn.NewIssuer(authn.IssuerConfig{Key: key, Issuer: c.front.PublicURL, Audience: c.endpoint})
	if err != nil {
		t.Fatal(err)
	}
	c.issuer = issuer
	c.token = recordToken(t, db, issuer, "acme", res.Owner.ID, authz.AllScopes)
	return c
}

// client connects the go-sdk client through a transport that sends each
// request to the next front door in turn, so no two consecutive requests
// of a conversation reach the same replica.
func (c *cluster) client(t *testing.T, opts *mcp.ClientOptions) (*mcp.ClientSession, *alternate) {
	t.Helper()
	return c.clientAt(t, "", opts)
}

// legacyClient is client at version, a revision before 2026-07-28, so
// that it starts with initialize.
func (c *cluster) legacyClient(t *testing.T, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *alternate) {
	t.Helper()
	return c.clientAt(t, version, opts)
}

func (c *cluster) clientAt(t *testing.T, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *alternate) {
	t.Helper()
	alt := &alternate{fronts: c.fronts, served: make([]atomic.Int32, len(c.fronts))}
	rec := &wireRecorder{t: t, token: c.token, version: version, base: alt}
	cl := mcp.NewClient(&mcp.Implementation{Name: "taskwire-cluster", Version: "1.0.0"}, opts)
	var sopts *mcp.ClientSessionOptions
	if version != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: c.endpoint, HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, sopts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, alt
}

// alternate is a round-robin load balancer in a RoundTripper.
type alternate struct {
	fronts []string
	next   atomic.Int32
	served []atomic.Int32
}

func (a *alternate) RoundTrip(req *http.Request) (*http.Response, error) {
	i := int(a.next.Add(1)-1) % len(a.fronts)
	a.served[i].Add(1)
	req = req.Clone(req.Context())
	req.URL.Host = a.fronts[i]
	return http.DefaultTransport.RoundTrip(req)
}
