package audit

import (
	"context"
	"math/bits"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// Record writes e to the audit log of its tenant. It looks up what the
// worker could not resolve: the tenant's id, and the member's handle, kind
// and sponsor (for a call refused before its membership was read). A
// tenant that does not exist is NotFound: there is no log to write to. A
// member that does not exist is recorded by id alone.
func (s *Store) Record(ctx context.Context, e Event) error {
	_, err := s.write(ctx, []Event{e}, false)
	return err
}

// RecordAll writes events as Record does, all in one transaction: one
// commit, and one multi-row insert per tenant (or a few, see chunks),
// however many calls ended together. Events whose tenant does not exist
// are left out (NotFound for Record) and counted in skipped; any other
// failure writes none of them.
func (s *Store) RecordAll(ctx context.Context, events []Event) (skipped int, err error) {
	return s.write(ctx, events, true)
}

// RecordTx writes e as Record does, in tx: the transaction of the call's
// own write, so that the write and the record of it commit together or
// not at all. A tenant that does not exist is NotFound.
func (s *Store) RecordTx(ctx context.Context, tx *ent.Tx, e Event) error {
	_, err := writeIn(ctx, tx, []Event{e}, false)
	return err
}

// write writes events in a transaction of its own.
func (s *Store) write(ctx context.Context, events []Event, skipMissing bool) (skipped int, err error) {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return 0, store.DomainError(ctx, err)
	}
	if skipped, err = writeIn(ctx, tx, events, skipMissing); err != nil {
		return 0, rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, store.DomainError(ctx, err)
	}
	return skipped, nil
}

// writeIn writes events in tx. An event of a tenant that does not exist
// is counted in skipped when skipMissing, else fails the write.
func writeIn(ctx context.Context, tx *ent.Tx, events []Event, skipMissing bool) (skipped int, err error) {
	var tenants []int
	byTenant := map[int][][]any{}
	for _, e := range events {
		tid, e, err := resolve(ctx, tx.Client(), e)
		if skipMissing && domainerr.KindOf(err) == domainerr.NotFound {
			skipped++
			continue
		}
		if err != nil {
			return 0, err
		}
		row, err := rowOf(tid, &e)
		if err != nil {
			return 0, err
		}
		if _, ok := byTenant[tid]; !ok {
			tenants = append(tenants, tid)
		}
		byTenant[tid] = append(byTenant[tid], row)
	}
	drv := tx.Client().Driver()
	for _, tid := range tenants {
		scoped := tenantscope.NewContext(ctx, tid)
		for _, chunk := range chunks(byTenant[tid]) {
			if err := insertRows(scoped, drv, tid, chunk); err != nil {
				return 0, store.DomainError(ctx, err)
			}
		}
	}
	return skipped, nil
}

// maxChunk is the most rows one insert of RecordAll writes.
const maxChunk = 64

// chunks splits creates into runs whose lengths are powers of two, longest
// first, of at most maxChunk: an insert's text depends on its number of
// rows, and with few lengths the database keeps the few statements
// prepared instead of parsing a new one for nearly every batch.
func chunks[T any](creates []T) [][]T {
	var out [][]T
	for len(creates) > 0 {
		n := min(maxChunk, 1<<(bits.Len(uint(len(creates)))-1))
		out = append(out, creates[:n:n])
		creates = creates[n:]
	}
	return out
}

func rollback(tx *ent.Tx, err error) error {
	tx.Rollback()
	return err
}

// resolve returns the id of e's tenant and e with what it lacks of its
// member looked up through client.
func resolve(ctx context.Context, client *ent.Client, e Event) (int, Event, error) {
	tid, err := tenantID(ctx, client, e)
	if err != nil {
		return 0, e, err
	}
	if e.Member == "" && e.MemberID > 0 {
		ctx = tenantscope.NewContext(ctx, tid)
		if e, err = withMember(ctx, client, tid, e); err != nil {
			return 0, e, store.DomainError(ctx, err)
		}
	}
	return tid, e, nil
}

// tenantID returns the id of e's tenant.
func tenantID(ctx context.Context, client *ent.Client, e Event) (int, error) {
	if e.TenantID > 0 {
		return e.TenantID, nil
	}
	t, _, err := tenancy.Tenant(ctx, client, e.Tenant)
	if domainerr.KindOf(err) == domainerr.NotFound {
		return 0, domainerr.Wrap(domainerr.NotFound, err, "no tenant %q to audit a call in", e.Tenant)
	}
	if err != nil {
		return 0, err
	}
	return t.ID, nil
}

// withMember fills e's member handle, kind and sponsor from the database,
// if the member is there.
func withMember(ctx context.Context, client *ent.Client, tid int, e Event) (Event, error) {
	m, err := tenancy.MemberByID(ctx, client, &ent.Tenant{ID: tid, Slug: e.Tenant}, e.MemberID)
	if domainerr.KindOf(err) == domainerr.NotFound {
		return e, nil
	}
	if err != nil {
		return e, err
	}
	e.Member, e.Kind = m.Handle, string(m.Kind)
	if sp := m.Edges.Sponsor; sp != nil {
		e.Sponsor = sp.Handle
	}
	return e, nil
}

// timeOf is t as the database keeps it: UTC, to the microsecond, so what
// List returns and what a cursor holds compare equal on every backend. A
// zero t is now.
func timeOf(t time.Time) time.Time {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}
