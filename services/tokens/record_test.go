package tokens_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestRecordMatchesClaims: a token's record holds what was issued, which
// the verified claims match; each claim changed is named as the mismatch.
func TestRecordMatchesClaims(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		raw, _, err := e.store.Create(context.Background(), e.issuer, tokens.CreateRequest{
			Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}, Toolsets: []string{"tasks"},
		})
		if err != nil {
			t.Fatal(err)
		}
		c := e.verify(t, raw)
		rec, err := e.store.Lookup(context.Background(), c.TokenID)
		if err != nil || !rec.Known() || rec.Revoked {
			t.Fatalf("Lookup = %+v, %v; want a live record", rec, err)
		}
		if rec.Tenant != "acme" || rec.Member != e.members["acme/bot"] || rec.Kind != identity.KindMCP || rec.Issuer != testIssuer {
			t.Errorf("Lookup = %+v, want acme's bot, an MCP token issued for %s", rec, testIssuer)
		}
		if got := rec.Mismatch(c); got != "" {
			t.Errorf("Mismatch(the claims issued) = %q, want none", got)
		}
		for want, edit := range map[string]func(*identity.Caller){
			"tenant":   func(c *identity.Caller) { c.Tenant = "globex" },
			"member":   func(c *identity.Caller) { c.Member = e.members["acme/alice"] },
			"kind":     func(c *identity.Caller) { c.Kind = identity.KindAdmin },
			"scopes":   func(c *identity.Caller) { c.Scopes = []string{"read", "comment", "write"} },
			"toolsets": func(c *identity.Caller) { c.Toolsets = nil },
			"expiry":   func(c *identity.Caller) { c.Expires = c.Expires.Add(24 * time.Hour) },
		} {
			changed := c
			edit(&changed)
			if got := rec.Mismatch(changed); got != want {
				t.Errorf("Mismatch(claims with another %s) = %q, want %q", want, got, want)
			}
		}
		older := c
		older.Expires = time.Time{} // from a front door that does not send it
		if got := rec.Mismatch(older); got != "" {
			t.Errorf("Mismatch(claims without expiry) = %q, want none", got)
		}
	})
}

// TestCreateLifetimes: no lifetime is the default, shortened to the
// maximum; a lifetime past the maximum, or not positive, is refused in a
// sentence naming the maximum.
func TestCreateLifetimes(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	short, err := tokens.New(tokens.Config{Client: e.client, MaxTTL: 24 * time.Hour, Now: e.clock.Now, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	req := tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}}
	for _, tc := range []struct {
		store *tokens.Store
		ttl   time.Duration
		want  time.Duration // 0: refused
		msg   string
	}{
		{e.store, 0, authn.DefaultTTL, ""},
		{e.store, time.Hour, time.Hour, ""},
		{short, 0, 24 * time.Hour, ""},
		{e.store, 876000 * time.Hour, 0, "a token may live at most 2160h on this server (--max-token-ttl), not 876000h: ask for 2160h or less"},
		{short, 25 * time.Hour, 0, "a token may live at most 24h on this server (--max-token-ttl), not 25h: ask for 24h or less"},
		{e.store, -time.Hour, 0, "a token must live a positive time, at most 2160h on this server (--max-token-ttl): leave the lifetime out for 2160h"},
	} {
		r := req
		r.TTL = tc.ttl
		before := time.Now()
		_, info, err := tc.store.Create(context.Background(), e.issuer, r)
		switch {
		case tc.want == 0 && (domainerr.KindOf(err) != domainerr.Invalid || domainerr.Message(err) != tc.msg):
			t.Errorf("Create(ttl %v, max %v) = %v, want Invalid %q", tc.ttl, tc.store.MaxTTL(), err, tc.msg)
		case tc.want != 0 && err != nil:
			t.Errorf("Create(ttl %v, max %v) = %v", tc.ttl, tc.store.MaxTTL(), err)
		case tc.want != 0:
			if life := info.ExpiresAt.Sub(before); life < tc.want-2*time.Second || life > tc.want+time.Second {
				t.Errorf("Create(ttl %v, max %v) lives %v, want %v", tc.ttl, tc.store.MaxTTL(), life, tc.want)
			}
		}
	}
}

// TestCreateAdminTokens: an admin token is for a person who is an owner
// or admin; it records no scopes and its kind.
func TestCreateAdminTokens(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		raw, info, err := e.store.Create(ctx, e.issuer, tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/alice"], Admin: true, Label: "cli"})
		if err != nil {
			t.Fatalf("Create(admin token for an admin) = %v", err)
		}
		rec, err := e.store.Lookup(ctx, info.ID)
		if err != nil || rec.Kind != identity.KindAdmin || len(rec.Scopes) != 0 || !info.Admin {
			t.Errorf("the admin token's record = %+v (info %+v), %v; want kind admin, no scopes", rec, info, err)
		}
		if _, err := e.verifier.Verify(ctx, raw); authn.ReasonOf(err) != authn.ReasonOtherKind {
			t.Errorf("the admin token at the MCP verifier = %v, want refused as the other kind", err)
		}
		scoped := tenantscope.NewContext(privacy.DecisionContext(ctx, privacy.Allow), e.tenants["acme"])
		viewer := client.Member.Create().SetTenantID(e.tenants["acme"]).SetHandle("vic").SetDisplayName("Vic").
			SetKind(member.KindHuman).SetRole(member.RoleViewer).SaveX(scoped)
		for who, want := range map[int]string{
			e.members["acme/bot"]: "bot is an assistant, and admin tokens are for people: assistants never administer",
			viewer.ID:             "vic is a viewer of acme, and admin tokens are for owners and admins: make vic an admin first",
		} {
			_, _, err := e.store.Create(ctx, e.issuer, tokens.CreateRequest{Tenant: "acme", Member: who, Admin: true})
			if domainerr.Message(err) != want {
				t.Errorf("Create(admin token) = %v, want %q", err, want)
			}
		}
	})
}

// TestCreateRefusesRetiredKey: a token signed with a key retired before
// its record is written is refused, so no key signs a token after its
// verification window was set.
func TestCreateRefusesRetiredKey(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		row := client.SigningKey.Create().SetKid(e.kid).SetPublicKey([]byte("public")).SetSealedKey([]byte("sealed")).
			SetWrappedBy("root").SaveX(context.Background())
		if _, _, err := e.store.Create(context.Background(), e.issuer, tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}}); err != nil {
			t.Fatalf("Create with the current key = %v", err)
		}
		row.Update().SetRetiredAt(time.Now()).ExecX(context.Background())
		_, _, err := e.store.Create(context.Background(), e.issuer, tokens.CreateRequest{Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}})
		if domainerr.KindOf(err) != domainerr.Unavailable || !strings.Contains(domainerr.Message(err), "rotated") {
			t.Errorf("Create with a retired key = %v, want Unavailable saying the key was rotated", err)
		}
	})
}
