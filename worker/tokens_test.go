package worker

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/services/tokens"
)

// fakeTokens holds the records of the tokens it knows: by default a live
// record of whatever token is asked of, issued as alice of acme (member
// 7) with scope read, expiring in an hour; fails with err when set.
type fakeTokens struct {
	mu      sync.Mutex
	revoked map[string]bool
	records map[string]tokens.Record // instead of the default one
	err     error
	touched []string
	held    chan struct{} // when set, Lookup says so on it and waits until its call ends
}

// aliceExpires is when the default record's token expires.
var aliceExpires = time.Now().Add(time.Hour).Truncate(time.Second)

func (f *fakeTokens) Lookup(ctx context.Context, jti string) (tokens.Record, error) {
	if f.held != nil {
		f.held <- struct{}{}
		<-ctx.Done()
		// As a driver reports it: in its own words, not wrapping ctx.Err().
		return tokens.Record{}, errors.New("failed to receive message: context canceled")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.records[jti]; ok {
		return r, f.err
	}
	return tokens.Record{ID: jti, Tenant: "acme", Member: 7, Kind: identity.KindMCP, Scopes: []string{"read"},
		CreatedAt: aliceExpires.Add(-time.Hour), ExpiresAt: aliceExpires, Revoked: f.revoked[jti]}, f.err
}

func (f *fakeTokens) Touch(_ context.Context, jti string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.touched = append(f.touched, jti)
	return nil
}

// alice is the caller the default record issued.
func alice(jti string) identity.Caller {
	return identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: jti, Expires: aliceExpires}
}

func TestRevokedTokenRefused(t *testing.T) {
	fake := &fakeTokens{revoked: map[string]bool{"stolen": true}}
	w := startWorker(t, func(c *Config) { c.Tokens = fake })
	call := func(jti string) error {
		ctx := identity.AppendToOutgoing(context.Background(), alice(jti))
		_, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		return err
	}
	if err := call("stolen"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("a revoked token: %v, want Unauthenticated", err)
	}
	if err := call("good"); status.Code(err) == codes.Unauthenticated {
		t.Errorf("a live token: %v, want it through", err)
	}
	if len(fake.touched) != 1 || fake.touched[0] != "good" {
		t.Errorf("touched %q, want only the live token", fake.touched)
	}
	fake.err = errors.New("database away")
	if err := call("good"); status.Code(err) != codes.Unavailable {
		t.Errorf("the check failing: %v, want Unavailable (never let a token through unchecked)", err)
	}
}

// TestCallerGoneWhileTokenChecked: a call whose caller leaves while its
// token is being checked (its front door killed, its client hung up) ends
// as Canceled, with no error logged: the database is not down.
func TestCallerGoneWhileTokenChecked(t *testing.T) {
	fake := &fakeTokens{held: make(chan struct{}, 1)}
	w := startWorker(t, func(c *Config) { c.Tokens = fake })
	ctx, cancel := context.WithCancel(identity.AppendToOutgoing(context.Background(), alice("good")))
	go func() {
		<-fake.held
		cancel()
	}()
	w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"})
	poll.Until(t, 10*time.Second, "the worker to end the call", func() bool {
		return len(w.logs.find("rpc", map[string]string{"method": taskwirev1.BoardService_GetTask_FullMethodName})) > 0
	})
	if got := w.logs.find("rpc", nil)[0].Attrs["code"]; got != codes.Canceled.String() {
		t.Errorf("the call whose caller left during the token check ended %s, want Canceled", got)
	}
	if n := len(w.logs.find("worker: cannot check the token", nil)); n != 0 {
		t.Errorf("%d errors logged for a caller that left, want none", n)
	}
}

// TestClaimsMustMatchTheRecord: a token whose claims differ from what was
// issued, or with no record at all, is refused with one neutral sentence
// and a security log line naming the token id, the record's tenant and
// the claim, never the token; the claims as issued go through.
func TestClaimsMustMatchTheRecord(t *testing.T) {
	fake := &fakeTokens{records: map[string]tokens.Record{"unknown": {}}}
	w := startWorker(t, func(c *Config) { c.Tokens = fake })
	call := func(c identity.Caller) error {
		_, err := w.client.GetTask(identity.AppendToOutgoing(context.Background(), c), &taskwirev1.GetTaskRequest{Ref: "T-1"})
		return err
	}
	if err := call(alice("jti-1")); status.Code(err) == codes.Unauthenticated {
		t.Fatalf("the claims as issued: %v, want them through", err)
	}
	for claim, edit := range map[string]func(*identity.Caller){
		"tenant":   func(c *identity.Caller) { c.Tenant = "globex" },
		"member":   func(c *identity.Caller) { c.Member = 8 },
		"scopes":   func(c *identity.Caller) { c.Scopes = []string{"read", "comment", "write"} },
		"toolsets": func(c *identity.Caller) { c.Toolsets = []string{"tasks"} },
		"expiry":   func(c *identity.Caller) { c.Expires = c.Expires.Add(time.Hour) },
	} {
		c := alice("jti-" + claim)
		edit(&c)
		err := call(c)
		if status.Code(err) != codes.Unauthenticated || status.Convert(err).Message() != notIssued {
			t.Errorf("another %s: %v, want Unauthenticated %q", claim, err, notIssued)
		}
		if len(w.logs.find("security: a token whose claims differ from its record was refused",
			map[string]string{"jti": "jti-" + claim, "tenant": "acme", "claim": claim})) != 1 {
			t.Errorf("another %s: no security log line naming the token, tenant and claim", claim)
		}
	}
	if err := call(alice("unknown")); status.Code(err) != codes.Unauthenticated || status.Convert(err).Message() != notIssued {
		t.Errorf("a token with no record: %v, want Unauthenticated %q", err, notIssued)
	}
	if len(w.logs.find("security: a token with no record was refused", map[string]string{"jti": "unknown"})) != 1 {
		t.Error("a token with no record: no security log line")
	}
}

// TestTokenKindsAndLifetimes: an admin token calls the admin services
// only, and an MCP token never does; a token recorded to live longer than
// the maximum, or past its recorded expiry, is refused.
func TestTokenKindsAndLifetimes(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	fake := &fakeTokens{records: map[string]tokens.Record{
		"admin":   {ID: "admin", Tenant: "acme", Member: 7, Kind: identity.KindAdmin, CreatedAt: now, ExpiresAt: now.Add(time.Hour)},
		"century": {ID: "century", Tenant: "acme", Member: 7, Kind: identity.KindMCP, Scopes: []string{"read"}, CreatedAt: now, ExpiresAt: now.Add(876000 * time.Hour)},
		"lapsed":  {ID: "lapsed", Tenant: "acme", Member: 7, Kind: identity.KindMCP, Scopes: []string{"read"}, CreatedAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(-time.Hour)},
	}}
	board := taskwirev1.BoardService_ServiceDesc.ServiceName
	w := startWorker(t, func(c *Config) { c.Tokens, c.MaxTokenTTL = fake, 2160*time.Hour })
	admin := startWorker(t, func(c *Config) { c.Tokens, c.OperatorServices = fake, []string{board} })
	call := func(w *testWorker, c identity.Caller, rec tokens.Record) error {
		c.Expires = rec.ExpiresAt
		_, err := w.client.GetTask(identity.AppendToOutgoing(context.Background(), c), &taskwirev1.GetTaskRequest{Ref: "T-1"})
		return err
	}
	adminCaller := identity.Caller{Tenant: "acme", Member: 7, TokenID: "admin", Kind: identity.KindAdmin}
	for _, tc := range []struct {
		name string
		w    *testWorker
		c    identity.Caller
		want string // "": through
	}{
		{"an admin token on a tool", w, adminCaller, "this is an admin token, for the admin API only: use an MCP token here"},
		{"an admin token on an admin service", admin, adminCaller, ""},
		{"an MCP token on an admin service", admin, alice("jti-1"), "this is an MCP token, which cannot administer: use the operator secret or an admin token"},
		{"a 100-year token", w, identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: "century"},
			"the token was made to live 876000h, longer than this server's maximum token lifetime of 2160h: ask for a new one"},
		{"a token past its recorded expiry", w, identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: "lapsed"},
			"the token expired at " + now.Add(-time.Hour).UTC().Format(time.RFC3339) + ": ask for a new one"},
	} {
		rec, _ := fake.Lookup(context.Background(), tc.c.TokenID)
		err := call(tc.w, tc.c, rec)
		if tc.want == "" && status.Code(err) == codes.Unauthenticated || tc.want != "" && status.Convert(err).Message() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestUnnamedMethodNeedsOnlyTheKey(t *testing.T) {
	const key = "front-door-key"
	w := startWorker(t, func(c *Config) {
		c.InternalKey = key
		c.Tokens = &fakeTokens{}
		c.Unnamed = []string{taskwirev1.BoardService_ListBoards_FullMethodName}
	})
	withKey := metadata.AppendToOutgoingContext(context.Background(), identity.MDInternalKey, key)
	if _, err := w.client.ListBoards(withKey, &taskwirev1.ListBoardsRequest{}); status.Code(err) == codes.Unauthenticated {
		t.Errorf("an unnamed method with the key and no caller: %v, want it through", err)
	}
	if _, err := w.client.ListBoards(context.Background(), &taskwirev1.ListBoardsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("an unnamed method without the key: %v, want Unauthenticated", err)
	}
	if _, err := w.client.GetTask(withKey, &taskwirev1.GetTaskRequest{Ref: "T-1"}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("another method with the key but no caller: %v, want Unauthenticated", err)
	}
}
