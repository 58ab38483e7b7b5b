package keys

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// clock is a settable test clock.
type clock struct{ now atomic.Pointer[time.Time] }

func newClock() *clock {
	c := &clock{}
	c.set(time.Now())
	return c
}
func (c *clock) set(t time.Time) { c.now.Store(&t) }
func (c *clock) Now() time.Time  { return *c.now.Load() }

// nudges counts PublishKeysChanged calls.
type nudges struct{ n atomic.Int32 }

func (n *nudges) PublishKeysChanged() error { n.n.Add(1); return nil }

func mustKey(t *testing.T) *authn.Key {
	t.Helper()
	k, err := authn.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func openRing(t *testing.T, cfg Config) *Ring {
	t.Helper()
	cfg.Logger = storetest.Logger()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(context.Background()); err != nil {
		t.Fatalf("Init = %v", err)
	}
	return r
}

func kids(keys []Public) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.ID)
	}
	return out
}

func TestFirstStartKeepsTheRootKey(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *ent.Client) {
		root := mustKey(t)
		r := openRing(t, Config{Client: db, Root: root})
		cur, err := r.Current()
		if err != nil || cur.ID != root.ID || !bytes.Equal(cur.Private, root.Private) {
			t.Fatalf("Current() = %v, %v; want the root key %s", cur, err, root.ID)
		}
		row := db.SigningKey.Query().OnlyX(context.Background())
		if bytes.Contains(row.SealedKey, root.Private.Seed()) {
			t.Error("the stored key holds the seed in clear")
		}
		if row.WrappedBy != root.ID || row.RetiredAt != nil {
			t.Errorf("row = wrapped by %s, retired %v; want wrapped by %s, not retired", row.WrappedBy, row.RetiredAt, root.ID)
		}
		// A second start with the same key changes nothing.
		openRing(t, Config{Client: db, Root: root})
		if n := db.SigningKey.Query().CountX(context.Background()); n != 1 {
			t.Errorf("keys after a second start = %d, want 1", n)
		}
	})
}

func TestRotate(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *ent.Client) {
		ctx := context.Background()
		root, clk, told := mustKey(t), newClock(), &nudges{}
		r := openRing(t, Config{Client: db, Root: root, Events: told, Now: clk.Now})
		rot, err := r.Rotate(ctx)
		if err != nil {
			t.Fatalf("Rotate = %v", err)
		}
		if rot.Current.ID == root.ID || rot.Previous.ID != root.ID || !rot.Current.Current {
			t.Fatalf("Rotate = %+v, want a new current key and %s retired", rot, root.ID)
		}
		// No live token was signed with it: it verifies for the leeway only.
		if want := clk.Now().UTC().Truncate(time.Microsecond).Add(authn.DefaultLeeway); !rot.Previous.VerifyUntil.Equal(want) {
			t.Errorf("previous verifies until %v, want %v (no live token: the leeway only)", rot.Previous.VerifyUntil, want)
		}
		if told.n.Load() != 1 {
			t.Errorf("nudges = %d, want 1", told.n.Load())
		}
		cur, _ := r.Current()
		if cur == nil || cur.ID != rot.Current.ID {
			t.Errorf("Current() = %v, want %s", cur, rot.Current.ID)
		}
		if got := kids(r.Public()); len(got) != 2 || got[0] != rot.Current.ID || got[1] != root.ID {
			t.Errorf("Public() = %v, want [%s %s]", got, rot.Current.ID, root.ID)
		}
		list, err := r.List(ctx)
		if err != nil || len(list) != 2 || !list[0].Current || list[1].Current || list[1].Retired.IsZero() {
			t.Errorf("List() = %+v, %v; want the new key current, then the root retired", list, err)
		}
		// Another worker of the deployment signs with the new key too.
		other := openRing(t, Config{Client: db, Root: root, Now: clk.Now})
		if k, err := other.Current(); err != nil || k.ID != rot.Current.ID {
			t.Errorf("another ring's Current() = %v, %v; want %s", k, err, rot.Current.ID)
		}
		// Past verify_until the retired key is refused.
		clk.set(rot.Previous.VerifyUntil)
		if _, ok := r.Lookup(root.ID); ok {
			t.Error("Lookup(retired key) past verify_until = found, want refused")
		}
		if _, ok := r.Lookup(rot.Current.ID); !ok {
			t.Error("Lookup(current key) = not found")
		}
	})
}

// TestRotateWindow: a retired key verifies until the latest expiry of the
// live, unrevoked tokens it signed (or whose key is unknown), plus the
// leeway, and never longer than the maximum token lifetime past its
// retirement: a 100-year token from before lifetimes were bounded does not
// keep it alive for a century. Tokens of other keys, revoked tokens and
// expired ones do not count.
func TestRotateWindow(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *ent.Client) {
		ctx := context.Background()
		root, clk := mustKey(t), newClock()
		now := clk.Now().UTC().Truncate(time.Microsecond)
		tenant := db.Tenant.Create().SetSlug("acme").SetName("Acme").SaveX(ctx)
		m := db.Member.Create().SetTenantID(tenant.ID).SetHandle("ada").SetDisplayName("Ada").SetKind("human").SetRole("owner").SaveX(allowAll(ctx))
		token := func(jti, kid string, expires time.Time, revoked bool) {
			c := db.Token.Create().SetTenantID(tenant.ID).SetMemberID(m.ID).SetJti(jti).SetScopes([]string{"read"}).
				SetKid(kid).SetExpiresAt(expires.UTC().Truncate(time.Second))
			if revoked {
				c.SetRevokedAt(now)
			}
			c.SaveX(allowAll(ctx))
		}
		day := 24 * time.Hour
		r := openRing(t, Config{Client: db, Root: root, Now: clk.Now, MaxTTL: 90 * day})
		token("mine", root.ID, now.Add(30*day), false)
		token("mine-revoked", root.ID, now.Add(60*day), true)
		token("mine-expired", root.ID, now.Add(-day), false)
		token("other-key", "another-kid", now.Add(80*day), false)
		rot, err := r.Rotate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Add(30 * day).Truncate(time.Second).Add(authn.DefaultLeeway); !rot.Previous.VerifyUntil.Equal(want) {
			t.Errorf("root verifies until %v, want %v: its latest live token's expiry and the leeway", rot.Previous.VerifyUntil, want)
		}

		// A key whose tokens are of unknown key, one of them a century long.
		token("unknown-key", "", now.Add(876000*time.Hour), false)
		rot, err = r.Rotate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Add(90 * day).Add(authn.DefaultLeeway); !rot.Previous.VerifyUntil.Equal(want) {
			t.Errorf("the second key verifies until %v, want %v: at most the maximum lifetime past its retirement", rot.Previous.VerifyUntil, want)
		}
	})
}

// A worker without the root key that sealed the current key cannot sign,
// but still verifies.
func TestForeignRootCannotSign(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *ent.Client) {
		root := mustKey(t)
		openRing(t, Config{Client: db, Root: root})
		r, err := New(Config{Client: db, Root: mustKey(t), Logger: storetest.Logger()})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		if k, err := r.Current(); err == nil {
			t.Errorf("Current() with another root = %s, want an error", k.ID)
		}
		if _, ok := r.Lookup(root.ID); !ok {
			t.Error("Lookup(current key) with another root = not found, want found")
		}
	})
}

// A new key file with the old one retired (rotation by configuration)
// signs from the next start; the old verifies while it is configured.
func TestRotationByConfiguration(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *ent.Client) {
		a, b := mustKey(t), mustKey(t)
		openRing(t, Config{Client: db, Root: a})
		r := openRing(t, Config{Client: db, Root: b, Retired: []*authn.Key{a}})
		if k, err := r.Current(); err != nil || k.ID != b.ID {
			t.Fatalf("Current() = %v, %v; want the new key file %s", k, err, b.ID)
		}
		if _, ok := r.Lookup(a.ID); !ok {
			t.Error("Lookup(configured retired key) = not found")
		}
		dropped := openRing(t, Config{Client: db, Root: b})
		if _, ok := dropped.Lookup(a.ID); ok {
			t.Error("Lookup(retired key no longer configured) = found, want refused")
		}
	})
}

// allowAll marks ctx as system work, which the tenant rule lets through.
func allowAll(ctx context.Context) context.Context {
	return privacy.DecisionContext(ctx, privacy.Allow)
}

func TestSealBindsTheKid(t *testing.T) {
	root, k := mustKey(t), mustKey(t)
	sealed, err := seal(root, k)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := unseal(root, k.ID, sealed); err != nil || got.ID != k.ID {
		t.Fatalf("unseal = %v, %v; want %s", got, err, k.ID)
	}
	if _, err := unseal(root, "another-kid", sealed); err == nil {
		t.Error("unseal under another kid = nil error, want refused")
	}
	if _, err := unseal(mustKey(t), k.ID, sealed); err == nil {
		t.Error("unseal under another root = nil error, want refused")
	}
}

func TestNewRequiresLogger(t *testing.T) {
	_, ringErr := New(Config{Client: &ent.Client{}, Root: mustKey(t)})
	_, setErr := NewSet(SetConfig{Load: func(context.Context) ([]Public, error) { return nil, nil }})
	for name, err := range map[string]error{"New": ringErr, "NewSet": setErr} {
		if err == nil || !strings.Contains(err.Error(), "Logger is required") {
			t.Errorf("%s without Logger = %v, want an error saying the Logger is required", name, err)
		}
	}
}
