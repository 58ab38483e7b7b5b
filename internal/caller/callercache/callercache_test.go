package callercache_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/caller/callercache"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/services/tokens"
)

// db stands for the database: what it says now, and how often it was asked.
type db struct {
	mu      sync.Mutex
	revoked map[string]bool
	role    string
	reads   atomic.Int64
	// block, when set, holds a read until it is closed (the read started
	// before a change and ends after it).
	block chan struct{}
	err   error
}

func newDB() *db { return &db{revoked: map[string]bool{}, role: "member"} }

func (d *db) Lookup(ctx context.Context, jti string) (tokens.Record, error) {
	d.reads.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	return tokens.Record{ID: jti, Tenant: "acme", Member: 7, Revoked: d.revoked[jti]}, d.err
}

func (d *db) Touch(context.Context, string) error { return nil }

func (d *db) Resolve(ctx context.Context, c identity.Caller) (identity.Access, error) {
	d.reads.Add(1)
	d.mu.Lock()
	role, block, err := d.role, d.block, d.err
	d.mu.Unlock()
	if block != nil {
		<-block
	}
	return identity.Access{Tenant: c.Tenant, MemberID: c.Member, Role: role}, err
}

func (d *db) set(f func(*db)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(d)
}

var alice = identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: "jti-1"}

func newCache(t *testing.T, nc *nats.Conn, d *db, now func() time.Time) *callercache.Cache {
	t.Helper()
	c, err := callercache.New(callercache.Config{NATS: nc, Tokens: d, Access: d, MaxAge: time.Minute, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func role(t *testing.T, c *callercache.Cache) string {
	t.Helper()
	a, err := c.Resolve(context.Background(), alice)
	if err != nil {
		t.Fatalf("Resolve(alice) = %v", err)
	}
	return a.Role
}

func revoked(t *testing.T, c *callercache.Cache, jti string) bool {
	t.Helper()
	r, err := c.Lookup(context.Background(), jti)
	if err != nil {
		t.Fatalf("Lookup(%s) = %v", jti, err)
	}
	return r.Revoked
}

func bus(t *testing.T, nc *nats.Conn) *events.Bus {
	t.Helper()
	b, err := events.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRepeatedCallsAreAnsweredFromMemory(t *testing.T) {
	d := newDB()
	c := newCache(t, natstest.Connect(t, natstest.Start(t)), d, nil)
	for range 10 {
		if r := role(t, c); r != "member" {
			t.Fatalf("role = %q, want member", r)
		}
		if revoked(t, c, "jti-1") {
			t.Fatal("a live token is revoked")
		}
	}
	if n := d.reads.Load(); n != 2 {
		t.Errorf("10 calls read the database %d times, want 2 (one per question)", n)
	}
}

func TestRevocationTakesEffectAtOnce(t *testing.T) {
	d := newDB()
	nc := natstest.Connect(t, natstest.Start(t))
	c := newCache(t, nc, d, nil)
	if revoked(t, c, "jti-1") {
		t.Fatal("a live token is revoked")
	}
	d.set(func(d *db) { d.revoked["jti-1"] = true })
	if err := bus(t, nc).PublishRevocation(events.Revocation{JTI: "jti-1", Expires: time.Now().Add(time.Hour).Unix()}); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 5*time.Second, "the revoked token to be refused", func() bool { return revoked(t, c, "jti-1") })
}

// TestForgetTakesEffectOnTheNextCall: a change made in this process
// applies from the very next question, with no broadcast heard at all.
func TestForgetTakesEffectOnTheNextCall(t *testing.T) {
	d := newDB()
	c := newCache(t, natstest.Connect(t, natstest.Start(t)), d, nil)
	if revoked(t, c, "jti-1") || role(t, c) != "member" {
		t.Fatal("a live token is revoked, or the role is not member")
	}
	d.set(func(d *db) { d.revoked["jti-1"], d.role = true, "viewer" })
	c.Forget()
	if !revoked(t, c, "jti-1") || role(t, c) != "viewer" {
		t.Error("after Forget, the remembered answers still stand")
	}
}

func TestRoleChangeTakesEffectAtOnce(t *testing.T) {
	d := newDB()
	nc := natstest.Connect(t, natstest.Start(t))
	c := newCache(t, nc, d, nil)
	b := bus(t, nc)
	if r := role(t, c); r != "member" {
		t.Fatalf("role = %q, want member", r)
	}
	d.set(func(d *db) { d.role = "viewer" })
	// News of resources is no news of a role: the old answer stands.
	if err := b.Publish("acme", events.Event{Kind: events.ResourcesChanged}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if r := role(t, c); r != "member" {
		t.Errorf("after a resources change, role = %q, want the remembered member", r)
	}
	if err := b.Publish("acme", events.Event{Kind: events.ToolsChanged, Member: 7}); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 5*time.Second, "the lowered role", func() bool { return role(t, c) == "viewer" })
}

func TestAnswerReadDuringAChangeIsNotKept(t *testing.T) {
	d := newDB()
	nc := natstest.Connect(t, natstest.Start(t))
	c := newCache(t, nc, d, nil)
	// Bob's answer in memory shows when the change is heard: it is
	// forgotten then.
	bob := identity.Caller{Tenant: "acme", Member: 8}
	resolve := func(who identity.Caller) string {
		a, err := c.Resolve(context.Background(), who)
		if err != nil {
			t.Fatalf("Resolve(%v) = %v", who, err)
		}
		return a.Role
	}
	resolve(bob)
	block := make(chan struct{})
	d.set(func(d *db) { d.block = block })
	got := make(chan string)
	go func() { got <- resolve(alice) }()
	poll.Until(t, 5*time.Second, "alice's read to start", func() bool { return d.reads.Load() == 2 })
	// Alice's role changes and is announced while her read is under way.
	d.set(func(d *db) { d.role, d.block = "viewer", nil })
	if err := bus(t, nc).Publish("acme", events.Event{Kind: events.ToolsChanged, Member: 7}); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 5*time.Second, "the change to be heard", func() bool {
		reads := d.reads.Load()
		resolve(bob)
		return d.reads.Load() > reads
	})
	close(block)
	if r := <-got; r != "member" {
		t.Fatalf("the read that began before the change = %q, want member", r)
	}
	if r := role(t, c); r != "viewer" {
		t.Errorf("after a read from before the change ended, role = %q, want viewer", r)
	}
}

func TestAnswersExpire(t *testing.T) {
	d := newDB()
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := newCache(t, natstest.Connect(t, natstest.Start(t)), d, clock)
	role(t, c)
	d.set(func(d *db) { d.role = "viewer" }) // changed behind the API's back
	mu.Lock()
	now = now.Add(59 * time.Second)
	mu.Unlock()
	if r := role(t, c); r != "member" {
		t.Errorf("within MaxAge, role = %q, want the remembered member", r)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if r := role(t, c); r != "viewer" {
		t.Errorf("after MaxAge, role = %q, want viewer", r)
	}
}

func TestFailuresAndRevocationsAreNotRemembered(t *testing.T) {
	d := newDB()
	c := newCache(t, natstest.Connect(t, natstest.Start(t)), d, nil)
	d.set(func(d *db) { d.revoked["jti-1"] = true })
	for range 2 {
		if !revoked(t, c, "jti-1") {
			t.Fatal("a revoked token is live")
		}
	}
	d.set(func(d *db) { d.err = errors.New("database down") })
	for range 2 {
		if _, err := c.Resolve(context.Background(), alice); err == nil {
			t.Fatal("Resolve with the database down succeeded")
		}
	}
	if n := d.reads.Load(); n != 4 {
		t.Errorf("4 questions with no good answer read the database %d times, want 4", n)
	}
}

// TestNothingIsRememberedWithoutNATS: while the connection is down a
// change cannot be heard, so every question goes to the database; after
// a reconnect, what was remembered before is forgotten.
func TestNothingIsRememberedWithoutNATS(t *testing.T) {
	opts := &natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true}
	ns := runNATS(t, opts)
	opts.Port = ns.Addr().(*net.TCPAddr).Port
	nc, err := nats.Connect(ns.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	d := newDB()
	c := newCache(t, nc, d, nil)
	role(t, c)
	ns.Shutdown()
	ns.WaitForShutdown()
	poll.Until(t, 5*time.Second, "the connection to drop", func() bool { return !nc.IsConnected() })
	d.set(func(d *db) { d.role = "viewer" }) // the news of it is lost
	if r := role(t, c); r != "viewer" {
		t.Errorf("with NATS down, role = %q, want viewer from the database", r)
	}
	d.set(func(d *db) { d.role = "admin" })
	if r := role(t, c); r != "admin" {
		t.Errorf("with NATS down, role = %q, want admin: nothing may be remembered", r)
	}
	runNATS(t, opts)
	poll.Until(t, 5*time.Second, "the reconnect", nc.IsConnected)
	d.set(func(d *db) { d.role = "owner" })
	if r := role(t, c); r != "owner" {
		t.Errorf("after a reconnect, role = %q, want owner from the database", r)
	}
	reads := d.reads.Load()
	role(t, c)
	if d.reads.Load() != reads {
		t.Error("after a reconnect, answers are not remembered again")
	}
}

func runNATS(t *testing.T, opts *natsserver.Options) *natsserver.Server {
	t.Helper()
	o := *opts
	ns, err := natsserver.NewServer(&o)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	return ns
}
