package sessions

import (
	"context"
	"log/slog"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/services/audit"
)

// The methods audit events of the console's sign-ins name: they are no
// gRPC methods a member calls, but what a person did.
const (
	MethodSignIn  = "console/sign-in"
	MethodSignOut = "console/sign-out"
)

// accountEvent is one thing an account did, to be written to the audit
// log of each tenant it is a member of.
type accountEvent struct {
	method  string
	sid     string // the session, when there is one
	outcome string // audit.OutcomeOK or audit.OutcomeRefused
	err     string // why it was refused
	targets []string
	start   time.Time
}

// events returns ev as one audit event per membership.
func (s *Service) events(ms []*ent.Member, ev accountEvent) []audit.Event {
	out := make([]audit.Event, 0, len(ms))
	for _, m := range ms {
		out = append(out, audit.Event{
			OccurredAt: s.now(),
			Tenant:     m.Edges.Tenant.Slug, TenantID: m.TenantID,
			MemberID: m.ID, Member: m.Handle, Kind: string(m.Kind),
			TokenID: ev.sid, Method: ev.method, Targets: ev.targets,
			Outcome: ev.outcome, Error: ev.err,
			Duration: time.Since(ev.start),
		})
	}
	return out
}

// auditTx writes ev to the audit log of each of ms's tenants in tx, the
// transaction of the change it records, so both commit or neither.
func (s *Service) auditTx(ctx context.Context, tx *ent.Tx, ms []*ent.Member, ev accountEvent) error {
	for _, e := range s.events(ms, ev) {
		if err := s.audit.RecordTx(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// auditRefusal writes a refused attempt on account to the audit log of
// each of its tenants. The refusal is answered whether or not the row is
// written: failing the attempt otherwise would tell nothing more.
func (s *Service) auditRefusal(ctx context.Context, account int, ev accountEvent) {
	ms, err := memberships(ctx, s.client, account)
	if err == nil {
		_, err = s.audit.RecordAll(ctx, s.events(ms, ev))
	}
	if err != nil {
		s.log.ErrorContext(ctx, "sessions: cannot audit a refused attempt", "account", account, "method", ev.method, "err", err)
	}
}

// security logs a security event at WARN.
func (s *Service) security(ctx context.Context, msg string, attrs ...slog.Attr) {
	s.log.LogAttrs(ctx, slog.LevelWarn, "security: "+msg, attrs...)
}
