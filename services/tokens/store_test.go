package tokens_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestCreateRecordsWithoutSecret: the token Create returns verifies and
// names its record, and nothing listed or stored contains the token.
func TestCreateRecordsWithoutSecret(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		raw, info := e.create(t, "acme/bot", "write", "read", "read")
		c := e.verify(t, raw)
		if c.TokenID != info.ID || c.Tenant != "acme" || c.Member != e.members["acme/bot"] {
			t.Errorf("token names %+v, want jti %s, acme, member %d", c, info.ID, e.members["acme/bot"])
		}
		list, err := e.store.List(context.Background(), "acme", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []tokens.Info{{
			ID: info.ID, MemberID: e.members["acme/bot"], Member: "bot", Scopes: []string{"read", "write"},
			Label: "for acme/bot", CreatedAt: e.clock.Now().UTC().Truncate(time.Microsecond), ExpiresAt: info.ExpiresAt,
		}}
		if diff := cmp.Diff(want, list); diff != "" {
			t.Errorf("List(acme) (-want +got):\n%s", diff)
		}
		if got := list[0].State(e.clock.Now()); got != tokens.StateLive {
			t.Errorf("State = %q, want live", got)
		}
		rows, err := client.Token.Query().All(privacy.DecisionContext(context.Background(), privacy.Allow))
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := json.Marshal(rows)
		listed, _ := json.Marshal(list)
		signature := raw[strings.LastIndex(raw, ".")+1:]
		for what, b := range map[string][]byte{"stored row": stored, "listing": listed} {
			if strings.Contains(string(b), signature) || strings.Contains(string(b), raw) {
				t.Errorf("the %s contains the token: %s", what, b)
			}
		}
	})
}

// TestCreateRefuses: nothing is returned, and nothing recorded, for a
// member of another tenant, an unknown tenant or bad input.
func TestCreateRefuses(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		for name, tc := range map[string]struct {
			req  tokens.CreateRequest
			kind domainerr.Kind
		}{
			"member of another tenant": {tokens.CreateRequest{Tenant: "acme", Member: e.members["globex/bot"], Scopes: []string{"read"}}, domainerr.NotFound},
			"unknown member":           {tokens.CreateRequest{Tenant: "acme", Member: 9999, Scopes: []string{"read"}}, domainerr.NotFound},
			"unknown tenant":           {tokens.CreateRequest{Tenant: "initech", Member: e.members["acme/bot"], Scopes: []string{"read"}}, domainerr.NotFound},
			"unknown scope":            {tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"admin"}}, domainerr.Invalid},
			"no scopes":                {tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/bot"]}, domainerr.Invalid},
			"label too long":           {tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}, Label: strings.Repeat("x", 101)}, domainerr.Invalid},
			"label with a newline":     {tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}, Label: "a\nb"}, domainerr.Invalid},
		} {
			raw, _, err := e.store.Create(context.Background(), e.issuer, tc.req)
			if raw != "" || domainerr.KindOf(err) != tc.kind {
				t.Errorf("Create(%s) = %q, %v; want no token and a %v error", name, raw, err, tc.kind)
			}
		}
		n, err := client.Token.Query().Count(privacy.DecisionContext(context.Background(), privacy.Allow))
		if err != nil || n != 0 {
			t.Errorf("tokens recorded after refusals = %d, %v; want 0", n, err)
		}
	})
}

// TestTenantIsolation: globex's admin sees none of acme's tokens and can
// revoke none of them, and is told so in the words used for a token or
// member that does not exist at all.
func TestTenantIsolation(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		_, acme := e.create(t, "acme/bot")
		_, globex := e.create(t, "globex/bot")

		list, err := e.store.List(ctx, "globex", 0)
		if err != nil || len(list) != 1 || list[0].ID != globex.ID {
			t.Errorf("List(globex) = %+v, %v; want only globex's token", list, err)
		}
		if _, err := e.store.List(ctx, "globex", e.members["acme/bot"]); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("List(globex, acme's member) = %v, want NotFound", err)
		}

		err = e.store.Revoke(ctx, "globex", acme.ID)
		missing := e.store.Revoke(ctx, "globex", "no-such-token")
		if domainerr.KindOf(err) != domainerr.NotFound {
			t.Fatalf("Revoke(globex, acme's token) = %v, want NotFound", err)
		}
		if got, want := domainerr.Message(err), strings.Replace(domainerr.Message(missing), "no-such-token", acme.ID, 1); got != want {
			t.Errorf("Revoke(globex, acme's token) says %q, want %q as for a token that does not exist", got, want)
		}
		if _, err := e.store.RevokeMember(ctx, "globex", e.members["acme/bot"]); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("RevokeMember(globex, acme's member) = %v, want NotFound", err)
		}
		if e.isRevoked(t, e.store, acme.ID) {
			t.Error("acme's token is revoked after globex's attempts")
		}
		if sent := e.events.take(); len(sent) != 0 {
			t.Errorf("refused revocations published %+v, want nothing", sent)
		}
		// The privacy rule, behind the explicit filters: no filter, yet
		// globex's own token only.
		jtis, err := client.Token.Query().Select(token.FieldJti).Strings(tenantscope.NewContext(ctx, e.tenants["globex"]))
		if err != nil || len(jtis) != 1 || jtis[0] != globex.ID {
			t.Errorf("tokens seen scoped to globex = %v, %v; want only %s", jtis, err, globex.ID)
		}
	})
}

// TestRevoke: a revoked token is refused and broadcast; revoking again
// keeps the first time and broadcasts again, so a retry can reach front
// doors a failed broadcast missed.
func TestRevoke(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		_, tok := e.create(t, "acme/bot")
		_, other := e.create(t, "acme/bot")
		if e.isRevoked(t, e.store, tok.ID) {
			t.Fatal("a fresh token is revoked")
		}
		revokedAt := e.clock.Now().UTC().Truncate(time.Microsecond)
		if err := e.store.Revoke(ctx, "acme", tok.ID); err != nil {
			t.Fatal(err)
		}
		if !e.isRevoked(t, e.store, tok.ID) || e.isRevoked(t, e.store, other.ID) {
			t.Error("Lookup after Revoke: want the revoked token only revoked")
		}
		want := []events.Revocation{{JTI: tok.ID, Expires: tok.ExpiresAt.Unix()}}
		if diff := cmp.Diff(want, e.events.take()); diff != "" {
			t.Errorf("published (-want +got):\n%s", diff)
		}

		e.clock.Advance(time.Hour)
		e.events.fail = true
		err := e.store.Revoke(ctx, "acme", tok.ID)
		if domainerr.KindOf(err) != domainerr.Unavailable {
			t.Errorf("Revoke with NATS down = %v, want Unavailable", err)
		}
		e.events.fail = false
		if err := e.store.Revoke(ctx, "acme", tok.ID); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, e.events.take()); diff != "" {
			t.Errorf("published on the retry (-want +got):\n%s", diff)
		}
		list, err := e.store.List(ctx, "acme", e.members["acme/bot"])
		if err != nil {
			t.Fatal(err)
		}
		if r := list[0].RevokedAt; r == nil || !r.Equal(revokedAt) || list[0].State(e.clock.Now()) != tokens.StateRevoked {
			t.Errorf("listed %+v, want revoked at %v (the first revocation)", list[0], revokedAt)
		}
	})
}

// TestRevokeMember revokes every live token of one member, and tells the
// front doors about each and about the member; other members' tokens and
// the member's later tokens stay valid.
func TestRevokeMember(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		_, a := e.create(t, "acme/bot")
		_, b := e.create(t, "acme/bot")
		_, done := e.create(t, "acme/bot")
		_, alice := e.create(t, "acme/alice")
		_, twin := e.create(t, "globex/bot")
		if err := e.store.Revoke(ctx, "acme", done.ID); err != nil {
			t.Fatal(err)
		}
		e.events.take()

		n, err := e.store.RevokeMember(ctx, "acme", e.members["acme/bot"])
		if err != nil || n != 2 {
			t.Fatalf("RevokeMember = %d, %v; want 2 tokens revoked", n, err)
		}
		for _, tc := range []struct {
			info tokens.Info
			want bool
		}{{a, true}, {b, true}, {done, true}, {alice, false}, {twin, false}} {
			if got := e.isRevoked(t, e.store, tc.info.ID); got != tc.want {
				t.Errorf("revoked(%s of %s) = %v, want %v", tc.info.Label, tc.info.Member, got, tc.want)
			}
		}
		sent := e.events.take()
		if len(sent) != 3 {
			t.Fatalf("published %+v, want the member and its 2 live tokens", sent)
		}
		m := sent[0]
		if m.Tenant != "acme" || m.Member != e.members["acme/bot"] || m.Before != e.clock.Now().Unix() || m.JTI != "" ||
			m.Expires < a.ExpiresAt.Unix() || !m.Valid() {
			t.Errorf("member revocation = %+v, want acme's bot, before now, kept past its tokens' expiry", m)
		}
		got := map[string]bool{sent[1].JTI: true, sent[2].JTI: true}
		if !got[a.ID] || !got[b.ID] {
			t.Errorf("published tokens %v, want %s and %s", got, a.ID, b.ID)
		}

		_, later := e.create(t, "acme/bot")
		if e.isRevoked(t, e.store, later.ID) {
			t.Error("a token minted after RevokeMember is revoked")
		}
	})
}

// TestLookupUnknown: a token never recorded here, such as one minted
// before tokens were recorded or elsewhere with the key, has no record.
func TestLookupUnknown(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		raw, _, err := e.issuer.Mint(mintRequest(e, "acme/bot"))
		if err != nil {
			t.Fatal(err)
		}
		c := e.verify(t, raw)
		for _, jti := range []string{c.TokenID, "", "nope"} {
			if !e.isRevoked(t, e.store, jti) {
				t.Errorf("Lookup(%q) found a token never recorded", jti)
			}
		}
	})
}

// TestTouchThrottles: last use is written at most once a minute per
// token, also across replicas sharing the database.
func TestTouchThrottles(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		_, tok := e.create(t, "acme/bot")
		replica := e.newStore(t, nil)
		lastUsed := func() *time.Time {
			t.Helper()
			list, err := e.store.List(ctx, "acme", 0)
			if err != nil {
				t.Fatal(err)
			}
			return list[0].LastUsedAt
		}
		if got := lastUsed(); got != nil {
			t.Fatalf("LastUsedAt of a fresh token = %v, want nil", got)
		}
		start := e.clock.Now().UTC().Truncate(time.Microsecond)
		steps := []struct {
			advance time.Duration
			store   *tokens.Store
			want    time.Time
		}{
			{0, e.store, start},
			{30 * time.Second, e.store, start},
			{10 * time.Second, replica, start}, // replica's first touch, but the row is fresh
			{25 * time.Second, e.store, start.Add(65 * time.Second)},
			{10 * time.Second, replica, start.Add(65 * time.Second)},
			{time.Minute, replica, start.Add(135 * time.Second)},
		}
		for i, s := range steps {
			e.clock.Advance(s.advance)
			if err := s.store.Touch(ctx, tok.ID); err != nil {
				t.Fatalf("step %d: Touch = %v", i, err)
			}
			if got := lastUsed(); got == nil || !got.Equal(s.want) {
				t.Errorf("step %d: LastUsedAt = %v, want %v", i, got, s.want)
			}
		}
		if err := e.store.Touch(ctx, "unknown"); err != nil {
			t.Errorf("Touch(unknown) = %v, want nil", err)
		}
	})
}

// TestLiveRevocations lists revoked tokens that have not expired, of
// every tenant, and nothing else.
func TestLiveRevocations(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		short := func(who string) tokens.Info {
			tenant, _, _ := strings.Cut(who, "/")
			_, info, err := e.store.Create(ctx, e.issuer, tokens.CreateRequest{
				Tenant: tenant, Member: e.members[who], Scopes: []string{"read"}, TTL: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			return info
		}
		_, acme := e.create(t, "acme/bot")
		_, globex := e.create(t, "globex/alice")
		_, live := e.create(t, "acme/alice")
		soon := short("acme/bot")
		for _, tok := range []tokens.Info{acme, soon} {
			if err := e.store.Revoke(ctx, "acme", tok.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.store.Revoke(ctx, "globex", globex.ID); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(2 * time.Hour)

		got, err := e.store.LiveRevocations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]time.Time{acme.ID: acme.ExpiresAt, globex.ID: globex.ExpiresAt}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("LiveRevocations (-want +got):\n%s\n(live token %s must not be listed, nor expired %s)", diff, live.ID, soon.ID)
		}
	})
}

func mintRequest(e *env, who string) authn.MintRequest {
	tenant, _, _ := strings.Cut(who, "/")
	return authn.MintRequest{Tenant: tenant, Member: e.members[who], Scopes: []string{"read"}}
}

func ExampleInfo_State() {
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	info := tokens.Info{ExpiresAt: now.Add(time.Hour)}
	fmt.Println(info.State(now), info.State(now.Add(2*time.Hour)))
	info.RevokedAt = &now
	fmt.Println(info.State(now))
	// Output:
	// live expired
	// revoked
}

func TestConfigRequiresLogger(t *testing.T) {
	for name, err := range map[string]error{
		"Config":            tokens.Config{Client: &ent.Client{}}.Validate(),
		"RevocationsConfig": tokens.RevocationsConfig{Load: func(context.Context) (map[string]time.Time, error) { return nil, nil }}.Validate(),
	} {
		if err == nil || !strings.Contains(err.Error(), "Logger is required") {
			t.Errorf("%s.Validate() without Logger = %v, want an error saying the Logger is required", name, err)
		}
	}
}
