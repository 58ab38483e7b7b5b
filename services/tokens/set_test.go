package tokens_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// natsEnv is env whose Store broadcasts on a real NATS server, and a
// front door's connection to the same server.
type natsEnv struct {
	*env
	url   string
	front *nats.Conn
}

func newNATSEnv(t *testing.T) *natsEnv {
	t.Helper()
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	url := natstest.URL(t)
	bus, err := events.New(natstest.Connect(t, url))
	if err != nil {
		t.Fatal(err)
	}
	e.store = e.newStore(t, bus)
	front, err := nats.Connect(url, nats.ReconnectWait(20*time.Millisecond), nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(front.Close)
	return &natsEnv{env: e, url: url, front: front}
}

// start starts a set over load on the front door's connection.
func (e *natsEnv) start(t *testing.T, load tokens.Loader) *tokens.Revocations {
	t.Helper()
	set, err := tokens.NewRevocations(tokens.RevocationsConfig{Load: load, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := set.Start(context.Background(), e.front)
	if err != nil {
		t.Fatalf("Start = %v", err)
	}
	t.Cleanup(stop)
	return set
}

// TestRevocationsLoadAndHear: what was revoked before the set started is
// loaded, what is revoked afterwards is heard at once over NATS.
func TestRevocationsLoadAndHear(t *testing.T) {
	e := newNATSEnv(t)
	ctx := context.Background()
	_, before := e.create(t, "acme/bot")
	_, after := e.create(t, "globex/bot")
	_, live := e.create(t, "acme/alice")
	if err := e.store.Revoke(ctx, "acme", before.ID); err != nil {
		t.Fatal(err)
	}

	set := e.start(t, e.store.LiveRevocations)
	if !set.Has(before.ID) {
		t.Error("a token revoked before Start is not in the set")
	}
	if err := e.store.Revoke(ctx, "globex", after.ID); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 5*time.Second, "the revocation published on NATS to reach the set", func() bool { return set.Has(after.ID) })
	if set.Has(live.ID) {
		t.Error("a live token is in the set")
	}
}

// TestRevocationsMember: after RevokeMember the set refuses the member's
// tokens issued before it, also one the set never heard of (minted but
// never recorded), and not the member's later tokens or other members'.
func TestRevocationsMember(t *testing.T) {
	e := newNATSEnv(t)
	set := e.start(t, e.store.LiveRevocations)
	raw, _, err := e.issuer.Mint(mintRequest(e.env, "acme/bot"))
	if err != nil {
		t.Fatal(err)
	}
	unseen := e.verify(t, raw)
	issued := e.clock.Now().Add(-time.Second)
	e.clock.Advance(2 * time.Second)
	n, err := e.store.RevokeMember(context.Background(), "acme", e.members["acme/bot"])
	if err != nil || n != 0 {
		t.Fatalf("RevokeMember = %d, %v; want 0 recorded tokens revoked", n, err)
	}
	poll.Until(t, 5*time.Second, "the member's revocation to reach the set", func() bool {
		return set.Refuses(unseen, issued)
	})
	bot := e.members["acme/bot"]
	for _, tc := range []struct {
		name   string
		tenant string
		member int
		issued time.Time
		want   bool
	}{
		{"issued before", "acme", bot, issued, true},
		{"issued at an unknown time", "acme", bot, time.Time{}, true},
		{"issued after", "acme", bot, e.clock.Now().Add(time.Second), false},
		{"other member", "acme", e.members["acme/alice"], issued, false},
		{"same id in another tenant", "globex", bot, issued, false},
	} {
		if got := set.HasMember(tc.tenant, tc.member, tc.issued); got != tc.want {
			t.Errorf("HasMember(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if set.Has(unseen.TokenID) {
		t.Error("Has(jti) of a token never revoked by id = true")
	}
}

// TestRevocationsReloadOnReconnect: revocations published while the
// front door was away from NATS are loaded when it reconnects, and the
// handler it had before keeps being called.
func TestRevocationsReloadOnReconnect(t *testing.T) {
	e := newNATSEnv(t)
	var before atomic.Int32
	e.front.SetReconnectHandler(func(*nats.Conn) { before.Add(1) })
	set := e.start(t, e.store.LiveRevocations)

	_, tok := e.create(t, "acme/bot")
	quiet := e.newStore(t, nil) // stores, broadcasts nothing: as if the message was lost
	if err := quiet.Revoke(context.Background(), "acme", tok.ID); err != nil {
		t.Fatal(err)
	}
	if set.Has(tok.ID) {
		t.Fatal("the set has a revocation nobody published")
	}
	if err := e.front.ForceReconnect(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the reconnect to reload the revocations", func() bool { return set.Has(tok.ID) })
	if before.Load() == 0 {
		t.Error("the reconnect handler set before Start was not called")
	}
}

// TestRevocationsReloadRetries: a reload that fails is retried until it
// succeeds; a first load that fails fails Start.
func TestRevocationsReloadRetries(t *testing.T) {
	var calls atomic.Int32
	load := func(context.Context) (map[string]time.Time, error) {
		if calls.Add(1) == 2 {
			return nil, errors.New("no worker yet")
		}
		return map[string]time.Time{"late": time.Now().Add(time.Hour)}, nil
	}
	set, err := tokens.NewRevocations(tokens.RevocationsConfig{Load: load, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := set.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	set.Reconnected()
	poll.Until(t, 5*time.Second, "a failed reload to be retried", func() bool { return calls.Load() >= 3 })

	failing, _ := tokens.NewRevocations(tokens.RevocationsConfig{Load: func(context.Context) (map[string]time.Time, error) {
		return nil, errors.New("no worker")
	}, Logger: storetest.Logger()})
	if _, err := failing.Start(context.Background(), natstest.Connect(t, natstest.URL(t))); err == nil {
		t.Error("Start with a failing loader = nil error, want the loader's error")
	}
}

// TestRevocationsExpire: entries are refused until their token expires
// (plus a minute for clock skew), then forgotten.
func TestRevocationsExpire(t *testing.T) {
	clock := newClock()
	exp := clock.Now().Add(time.Hour)
	set, err := tokens.NewRevocations(tokens.RevocationsConfig{
		Load:   func(context.Context) (map[string]time.Time, error) { return map[string]time.Time{"old": exp}, nil },
		Now:    clock.Now,
		Logger: storetest.Logger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	set.Apply(events.Revocation{Tenant: "acme", Member: 7, Before: clock.Now().Unix(), Expires: exp.Unix()})
	set.Apply(events.Revocation{JTI: "bad"}) // no expiry: ignored
	caller := identity.Caller{Tenant: "acme", Member: 7, TokenID: "other"}
	if !set.Has("old") || !set.Refuses(caller, clock.Now().Add(-time.Minute)) || set.Has("bad") {
		t.Fatal("fresh entries: want old and member 7 refused, bad ignored")
	}
	clock.Advance(time.Hour + 30*time.Second)
	if !set.Has("old") {
		t.Error("Has 30s after expiry = false, want true: verifiers still accept the token for clock skew")
	}
	clock.Advance(time.Minute)
	if set.Has("old") || set.Refuses(caller, time.Time{}) {
		t.Error("entries still refused after their tokens expired")
	}
	set.Apply(events.Revocation{JTI: "new", Expires: clock.Now().Add(time.Hour).Unix()})
	if tokens, members := set.Len(); tokens != 1 || members != 0 {
		t.Errorf("Len after expiry = %d tokens, %d members; want 1, 0 (expired entries swept)", tokens, members)
	}
}

// TestTokenService: a front door without a database loads the live
// revocations from a worker over gRPC.
func TestTokenService(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	ctx := context.Background()
	_, tok := e.create(t, "acme/bot")
	if err := e.store.Revoke(ctx, "acme", tok.ID); err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	e.store.Register(srv)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) { return lis.Dial() }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })

	got, err := tokens.FromWorker(conn)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := e.store.LiveRevocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" || len(got) != 1 {
		t.Errorf("FromWorker (-want +got):\n%s", diff)
	}
}
