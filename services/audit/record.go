package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/ent/auditevent"
	"github.com/taskwire/taskwire/ent/member"
	"github.com/taskwire/taskwire/ent/tenant"
	"github.com/taskwire/taskwire/ent/tenantscope"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/store"
)

// Record writes e to the audit log of its tenant. It looks up what the
// worker could not resolve: the tenant's id, and the member's handle, kind
// and sponsor (for a call refused before its membership was read). A
// tenant that does not exist is NotFound: there is no log to write to. A
// member that does not exist is recorded by id alone.
func (s *Store) Record(ctx context.Context, e Event) error {
	tid, err := s.tenantID(ctx, e)
	if err != nil {
		return err
	}
	ctx = tenantscope.NewContext(ctx, tid)
	if e.Member == "" && e.MemberID > 0 {
		if e, err = s.withMember(ctx, tid, e); err != nil {
			return store.DomainError(ctx, err)
		}
	}
	create := s.client.AuditEvent.Create().
		SetTenantID(tid).
		SetOccurredAt(timeOf(e.OccurredAt)).
		SetMemberHandle(e.Member).
		SetSponsorHandle(e.Sponsor).
		SetTokenID(e.TokenID).
		SetSessionLabel(e.SessionLabel).
		SetMethod(e.Method).
		SetTool(e.Tool).
		SetTargets(e.Targets).
		SetOutcome(e.Outcome).
		SetErrorMessage(e.Error).
		SetTraceID(e.TraceID).
		SetDurationMs(max(e.Duration.Milliseconds(), 0))
	if e.MemberID > 0 {
		create.SetMemberID(e.MemberID)
	}
	if e.Kind != "" {
		create.SetMemberKind(auditevent.MemberKind(e.Kind))
	}
	return store.DomainError(ctx, create.Exec(ctx))
}

// tenantID returns the id of e's tenant.
func (s *Store) tenantID(ctx context.Context, e Event) (int, error) {
	if e.TenantID > 0 {
		return e.TenantID, nil
	}
	id, err := s.client.Tenant.Query().Where(tenant.Slug(e.Tenant)).OnlyID(ctx)
	if ent.IsNotFound(err) {
		return 0, domainerr.Wrap(domainerr.NotFound, err, fmt.Sprintf("no tenant %q to audit a call in", e.Tenant))
	}
	return id, store.DomainError(ctx, err)
}

// withMember fills e's member handle, kind and sponsor from the database.
func (s *Store) withMember(ctx context.Context, tid int, e Event) (Event, error) {
	m, err := s.client.Member.Query().
		Where(member.TenantID(tid), member.ID(e.MemberID)).
		WithSponsor().Only(ctx)
	if ent.IsNotFound(err) {
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
