package schema

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"

	"entgo.io/ent"

	gen "github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
)

// numbered is the mutation of an entity numbered within its tenant.
type numbered interface {
	ent.Mutation
	Client() *gen.Client
	TenantID() (int, bool)
	Number() (int, bool)
	SetNumber(int)
}

// numberInTenant gives each new entity the next number of its tenant:
// bump raises the tenant's counter, and seq reads it. Numbers are per
// tenant, like task refs, so that what a caller sees counts nothing but
// its own tenant's entities. The bump runs in the creating transaction
// (when there is one) and locks the tenant's row until commit on
// PostgreSQL (SQLite serializes writing transactions), so two creates
// never get the same number; the unique (tenant_id, number) index is the
// backstop. A number set by the caller (a migration) is kept.
func numberInTenant(bump func(*gen.TenantUpdateOne) *gen.TenantUpdateOne, seq func(*gen.Tenant) int) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			n, ok := m.(numbered)
			if !ok || !m.Op().Is(ent.OpCreate) {
				return next.Mutate(ctx, m)
			}
			if _, set := n.Number(); !set {
				tid, ok := n.TenantID()
				if !ok {
					return nil, fmt.Errorf("schema: %s created without a tenant", m.Type())
				}
				t, err := bump(n.Client().Tenant.UpdateOneID(tid)).Save(ctx)
				if err != nil {
					return nil, fmt.Errorf("schema: number a new %s: %w", m.Type(), err)
				}
				n.SetNumber(seq(t))
			}
			return next.Mutate(ctx, m)
		})
	}
}

// Random member ids: see randomID.
const (
	minRandomID = 1 << 24 // above any id a sequence handed out before
	maxRandomID = 1<<31 - 1
)

// randomID gives each new member a random id in [minRandomID,
// maxRandomID], one no member of any tenant has. A member's id is the
// subject of its tokens, which their holder can read: a sequence would
// tell every tenant how many members the platform has. The range starts
// above what a sequence reached, so an id handed out by the sequence
// before (or by an older build during a rollout) is never drawn.
func randomID() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			mm, ok := m.(*gen.MemberMutation)
			if !ok || !m.Op().Is(ent.OpCreate) {
				return next.Mutate(ctx, m)
			}
			if _, set := mm.ID(); !set {
				id, err := freeMemberID(ctx, mm.Client())
				if err != nil {
					return nil, err
				}
				mm.SetID(id)
			}
			return next.Mutate(ctx, m)
		})
	}
}

// freeMemberID draws random ids until one is free in every tenant.
func freeMemberID(ctx context.Context, c *gen.Client) (int, error) {
	all := privacy.DecisionContext(ctx, privacy.Allow) // ids are unique across tenants
	for range 8 {
		var b [8]byte
		_, _ = rand.Read(b[:]) // never fails, per crypto/rand
		id := minRandomID + int(binary.LittleEndian.Uint64(b[:])%uint64(maxRandomID-minRandomID+1))
		taken, err := c.Member.Query().Where(member.ID(id)).Exist(all)
		if err != nil {
			return 0, fmt.Errorf("schema: draw a member id: %w", err)
		}
		if !taken {
			return id, nil
		}
	}
	return 0, fmt.Errorf("schema: no free member id in 8 draws")
}
