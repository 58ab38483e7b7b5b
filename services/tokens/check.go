package tokens

import (
	"context"
	"sync"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/store"
)

// TouchEvery is how often at most Touch writes a token's last use.
const TouchEvery = time.Minute

// system marks ctx as work across tenants: looking a token up by its id
// happens before, and independently of, any tenant's scope.
func system(ctx context.Context) context.Context {
	return privacy.DecisionContext(ctx, privacy.Allow)
}

// Record is what the database holds of a token: what was issued, which
// the token's claims must match on every call, and whether it was revoked.
// The zero Record is a token never recorded here.
type Record struct {
	ID        string // the jti; empty: no such token was recorded
	Tenant    string // the tenant's slug
	Member    int
	Kind      string   // identity.KindMCP or identity.KindAdmin
	Scopes    []string // weakest first; none for an admin token
	Toolsets  []string // nil: every toolset
	Issuer    string   // the public URL it was issued for; empty when not kept
	CreatedAt time.Time
	ExpiresAt time.Time
	Revoked   bool
}

// Known reports whether r is a token recorded here.
func (r Record) Known() bool { return r.ID != "" }

// Lookup returns the record of the token with id jti: the zero Record when
// there is none. Every token minted through Create is recorded before it
// is handed out, so a token with no record is not one of ours, however
// well signed: minted elsewhere with the key, or by a version from before
// tokens were recorded (their holders need new ones: taskwire token
// create). Workers call it on every call.
func (s *Store) Lookup(ctx context.Context, jti string) (Record, error) {
	if jti == "" {
		return Record{}, nil
	}
	row, err := s.client.Token.Query().Where(token.Jti(jti)).WithTenant().Only(system(ctx))
	switch {
	case ent.IsNotFound(err):
		return Record{}, nil
	case err != nil:
		return Record{}, store.DomainError(ctx, err)
	}
	return Record{
		ID: row.Jti, Tenant: row.Edges.Tenant.Slug, Member: row.MemberID, Kind: string(row.Kind),
		Scopes: row.Scopes, Toolsets: nilIfEmpty(row.Toolsets), Issuer: row.Issuer,
		CreatedAt: row.CreatedAt, ExpiresAt: row.ExpiresAt, Revoked: row.RevokedAt != nil,
	}, nil
}

// Touch records that the token with id jti was just used. It writes at
// most once per TouchEvery per token: calls in between return at once
// without touching the database, and the write itself is conditional, so
// many workers together still write about once per TouchEvery. An unknown
// jti is ignored.
func (s *Store) Touch(ctx context.Context, jti string) error {
	now := s.now()
	if jti == "" || !s.touched.due(jti, now) {
		return nil
	}
	err := s.client.Token.Update().
		Where(token.Jti(jti), token.Or(token.LastUsedAtIsNil(), token.LastUsedAtLTE(now.Add(-TouchEvery)))).
		SetLastUsedAt(now).Exec(system(ctx))
	if err != nil {
		s.touched.forget(jti)
		return store.DomainError(ctx, err)
	}
	return nil
}

// LiveRevocations returns the id and expiry of every revoked token, of all
// tenants, that has not expired (or expired less than a minute ago, within
// the verifiers' leeway): what a front door must refuse when it starts.
func (s *Store) LiveRevocations(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.client.Token.Query().
		Where(token.RevokedAtNotNil(), token.ExpiresAtGT(s.now().Add(-expiryGrace))).
		Select(token.FieldJti, token.FieldExpiresAt).All(system(ctx))
	if err != nil {
		return nil, store.DomainError(ctx, err)
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.Jti] = r.ExpiresAt
	}
	return out, nil
}

// touches remembers which tokens were touched in the last TouchEvery, so
// Touch can skip the database for them. Entries older than that are swept
// at most once per TouchEvery, so it holds only recently used tokens.
type touches struct {
	mu    sync.Mutex
	seen  map[string]time.Time
	swept time.Time
}

// due reports whether jti should be written at now, and if so marks it.
func (t *touches) due(jti string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if last, ok := t.seen[jti]; ok && now.Sub(last) < TouchEvery {
		return false
	}
	t.seen[jti] = now
	if now.Sub(t.swept) >= TouchEvery {
		for k, last := range t.seen {
			if now.Sub(last) >= TouchEvery {
				delete(t.seen, k)
			}
		}
		t.swept = now
	}
	return true
}

// forget drops jti's mark, so the next Touch tries again.
func (t *touches) forget(jti string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.seen, jti)
}
