package nodetest

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/services/keys"
)

// Cluster is a scaled-out Taskwire in one test: one worker node and two
// front door nodes, each with its own NATS connection to one NATS server,
// behind one public URL, as behind a load balancer.
type Cluster struct {
	DB       *ent.Client
	Token    string
	Endpoint string   // the public endpoint tokens are bound to
	Fronts   []string // each front door's host:port
	Logs     *LogSink
	NATSURL  string
	Owner    int // the owner's member id
	Issuer   *authn.Issuer
	Keys     *keys.Ring           // the worker's keyring
	Front    node.FrontdoorConfig // what every front door shares
}

// AddFront starts one more front door, with its own NATS connection, as a
// deployment that scales out or replaces a replica, and returns its
// host:port once it takes requests.
func (c *Cluster) AddFront(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.Front
	cfg.Listener, cfg.NATS = ln, natstest.Connect(t, c.NATSURL)
	f, err := node.NewFrontdoor(cfg)
	if err == nil {
		err = f.Start(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Stop(context.Background()) })
	c.Fronts = append(c.Fronts, ln.Addr().String())
	c.Endpoint = f.Endpoint()
	return ln.Addr().String()
}

// StartCluster starts a worker node over a database and NATS server of
// s, and two front doors, and records a token of the first tenant's
// owner.
func StartCluster(t testing.TB, s Setup) *Cluster {
	t.Helper()
	ctx := context.Background()
	c := &Cluster{Logs: &LogSink{}}
	db, key := c.openData(t, s)
	log := slog.New(c.Logs)
	workerNATS := natstest.Connect(t, c.NATSURL)
	bus, err := events.New(workerNATS)
	if err != nil {
		t.Fatal(err)
	}
	c.Keys, err = keys.New(keys.Config{Client: db, Root: key, Events: bus, VerifyFor: s.KeysVerifyFor, Logger: log})
	if err == nil {
		err = c.Keys.Init(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	w := startWorker(t, node.WorkerConfig{
		DB: db, NATS: workerNATS, InternalKey: "cluster-key", Listen: "127.0.0.1:0", Drain: 5 * time.Second, Log: log,
		Keys: c.Keys, Issuer: s.workerIssuer(c.Keys), OAuth: s.OAuth, PublicURL: s.PublicURL,
	})
	c.Front = node.FrontdoorConfig{
		PublicURL: s.publicURL(), Worker: "passthrough:///" + w.Addr(), InternalKey: "cluster-key", Key: key, Log: log,
		Operator: s.Operator,
	}
	c.AddFront(t)
	c.AddFront(t)
	c.bootstrap(t, key)
	return c
}

// openData opens the cluster's database and root key, and finds its NATS
// server.
func (c *Cluster) openData(t testing.TB, s Setup) (*ent.Client, *authn.Key) {
	t.Helper()
	backend, natsURL := storetest.SQLite, s.NATSURL
	if s.Postgres {
		if natsURL == "" {
			t.Skip("TASKWIRE_TEST_NATS not set: skipping the PostgreSQL + NATS server deployment")
		}
		backend = storetest.Postgres
	}
	if natsURL == "" {
		natsURL = natstest.Start(t)
	}
	c.NATSURL = natsURL
	db, err := store.Open(context.Background(), storetest.DSN(t, backend), store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key, _, err := authn.LoadOrCreateKey(t.TempDir() + "/signing.key")
	if err != nil {
		t.Fatal(err)
	}
	c.DB = db
	return db, key
}

// startWorker starts a worker node, stopped when the test ends.
func startWorker(t testing.TB, cfg node.WorkerConfig) *node.Worker {
	t.Helper()
	w, err := node.NewWorker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	t.Cleanup(func() { w.Stop(context.Background()) })
	return w
}

// bootstrap creates the first tenant and records its owner's token.
func (c *Cluster) bootstrap(t testing.TB, key *authn.Key) {
	t.Helper()
	res, err := tenancy.Bootstrap(context.Background(), c.DB, tenancy.Config{TenantSlug: "acme", OwnerHandle: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	c.Owner = res.Owner.ID
	issuer, err := authn.NewIssuer(authn.IssuerConfig{Key: key, Issuer: c.Front.PublicURL, Audience: c.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	c.Issuer = issuer
	c.Token = RecordToken(t, c.DB, issuer, "acme", res.Owner.ID, authz.AllScopes)
}

// Client connects the go-sdk client through a transport that sends each
// request to the next front door in turn, so no two consecutive requests
// of a conversation reach the same replica.
func (c *Cluster) Client(t *testing.T, opts *mcp.ClientOptions) (*mcp.ClientSession, *Alternate) {
	t.Helper()
	return c.clientAt(t, "", opts)
}

// LegacyClient is Client at version, a revision before 2026-07-28, so
// that it starts with initialize.
func (c *Cluster) LegacyClient(t *testing.T, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *Alternate) {
	t.Helper()
	return c.clientAt(t, version, opts)
}

// clientAt is Client at version ("": 2026-07-28).
func (c *Cluster) clientAt(t *testing.T, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *Alternate) {
	t.Helper()
	alt := NewAlternate(c.Fronts)
	rec := NewWireRecorder(t, c.Token, version, alt)
	cl := mcp.NewClient(&mcp.Implementation{Name: "taskwire-cluster", Version: "1.0.0"}, opts)
	var sopts *mcp.ClientSessionOptions
	if version != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: c.Endpoint, HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, sopts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, alt
}

// Alternate is a round-robin load balancer in a RoundTripper.
type Alternate struct {
	fronts []string
	next   atomic.Int32
	Served []atomic.Int32 // requests each front door got
}

// NewAlternate balances over the front doors at fronts (host:port).
func NewAlternate(fronts []string) *Alternate {
	return &Alternate{fronts: fronts, Served: make([]atomic.Int32, len(fronts))}
}

// RoundTrip sends req to the next front door.
func (a *Alternate) RoundTrip(req *http.Request) (*http.Response, error) {
	i := int(a.next.Add(1)-1) % len(a.fronts)
	a.Served[i].Add(1)
	req = req.Clone(req.Context())
	req.URL.Host = a.fronts[i]
	return http.DefaultTransport.RoundTrip(req)
}
