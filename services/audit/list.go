package audit

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/auditevent"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// Page sizes of List.
const (
	DefaultLimit = 25
	MaxLimit     = 100
)

// OutcomeError, as a Filter's Outcome, matches every failure but a
// refusal.
const OutcomeError = "error"

// Filter narrows List; its zero value matches every event.
type Filter struct {
	// Member is a member's handle: only that member's calls. Removed
	// members are found too.
	Member string
	// Tool is a tool's name, e.g. "tasks_move", or a full gRPC method,
	// e.g. "/taskwire.v1.BoardService/CompleteRefs" (it starts with "/").
	Tool string
	// Outcome is OutcomeOK, OutcomeRefused, OutcomeError, or a gRPC code
	// name such as "NotFound" (any case).
	Outcome string
	// Since (inclusive) and Until (exclusive) bound when the calls ended.
	Since, Until time.Time
}

// List returns a page of the audit log of the tenant with slug
// tenantSlug, newest first, with the cursor of the next page ("" on the
// last). limit is 1 to MaxLimit, 0 for DefaultLimit. c is "" for the
// first page or the next cursor of a previous page of the same tenant and
// filter; anything else is Invalid. An unknown tenant or member is
// NotFound.
//
// The caller must have checked that whoever asks may read the tenant's
// log: List trusts tenantSlug.
func (s *Store) List(ctx context.Context, tenantSlug string, f Filter, c string, limit int) ([]Event, string, error) {
	limit, f, err := checkQuery(f, limit)
	if err != nil {
		return nil, "", err
	}
	t, ctx, err := tenancy.Tenant(ctx, s.client, tenantSlug)
	if err != nil {
		return nil, "", err
	}
	where, memberID, err := s.where(ctx, t, f)
	if err != nil {
		return nil, "", store.DomainError(ctx, err)
	}
	key := filterKey(memberID, f)
	if c != "" {
		p, err := s.open(c, t.ID, key)
		if err != nil {
			return nil, "", err
		}
		where = append(where, auditevent.Or(
			auditevent.OccurredAtLT(p.at),
			auditevent.And(auditevent.OccurredAt(p.at), auditevent.IDLT(p.id)),
		))
	}
	rows, err := s.client.AuditEvent.Query().Where(where...).
		Order(ent.Desc(auditevent.FieldOccurredAt), ent.Desc(auditevent.FieldID)).
		Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, "", store.DomainError(ctx, err)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = s.seal(t.ID, key, position{at: last.OccurredAt, id: last.ID})
	}
	out := make([]Event, len(rows))
	for i, r := range rows {
		out[i] = eventOf(t.Slug, r)
	}
	return out, next, nil
}

// checkQuery returns the page size and f with its outcome in canonical
// form, or why they are not valid.
func checkQuery(f Filter, limit int) (int, Filter, error) {
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0 || limit > MaxLimit:
		return 0, f, domainerr.New(domainerr.Invalid, "limit %d is out of range: use 1 to %d, or leave it out for %d", limit, MaxLimit, DefaultLimit)
	}
	if f.Outcome != "" {
		o, ok := outcomes[strings.ToLower(f.Outcome)]
		if !ok {
			return 0, f, domainerr.New(domainerr.Invalid,
				"outcome %q is not valid: use ok, refused, error, or an error code such as NotFound or InvalidArgument", cut(f.Outcome, 40))
		}
		f.Outcome = o
	}
	if len(f.Tool) > 200 {
		return 0, f, domainerr.New(domainerr.Invalid, "tool is longer than 200 characters: name one tool, e.g. tasks_move")
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return 0, f, domainerr.New(domainerr.Invalid, "since must be before until")
	}
	return limit, f, nil
}

// outcomes maps what a filter may name, in lower case, to the outcome as
// recorded: ok, refused, error, and every gRPC code's name but OK and
// PermissionDenied, which are recorded as ok and refused.
var outcomes = func() map[string]string {
	m := map[string]string{OutcomeOK: OutcomeOK, OutcomeRefused: OutcomeRefused, OutcomeError: OutcomeError}
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		if c != codes.PermissionDenied {
			m[strings.ToLower(c.String())] = c.String()
		}
	}
	return m
}()

// where returns the predicates of f in tenant t, and the id of f's member
// (0 for none).
func (s *Store) where(ctx context.Context, t *ent.Tenant, f Filter) ([]predicate.AuditEvent, int, error) {
	where := []predicate.AuditEvent{auditevent.TenantID(t.ID)}
	memberID := 0
	if f.Member != "" {
		m, err := tenancy.MemberByHandle(ctx, s.client, t, f.Member)
		if domainerr.KindOf(err) == domainerr.NotFound {
			return nil, 0, domainerr.Wrap(domainerr.NotFound, err,
				"no member %q in tenant %s: use a member's handle, as the events show it", cut(f.Member, 40), t.Slug)
		}
		if err != nil {
			return nil, 0, err
		}
		id := m.ID
		memberID = id
		where = append(where, auditevent.MemberID(id))
	}
	switch {
	case strings.HasPrefix(f.Tool, "/"):
		where = append(where, auditevent.Method(f.Tool))
	case f.Tool != "":
		where = append(where, auditevent.Tool(f.Tool))
	}
	switch f.Outcome {
	case "":
	case OutcomeError:
		where = append(where, auditevent.OutcomeNotIn(OutcomeOK, OutcomeRefused))
	default:
		where = append(where, auditevent.Outcome(f.Outcome))
	}
	if !f.Since.IsZero() {
		where = append(where, auditevent.OccurredAtGTE(timeOf(f.Since)))
	}
	if !f.Until.IsZero() {
		where = append(where, auditevent.OccurredAtLT(timeOf(f.Until)))
	}
	return where, memberID, nil
}

func eventOf(tenantSlug string, r *ent.AuditEvent) Event {
	e := Event{
		ID: r.ID, OccurredAt: r.OccurredAt, Tenant: tenantSlug, TenantID: r.TenantID,
		Member: r.MemberHandle, Sponsor: r.SponsorHandle, TokenID: r.TokenID, SessionLabel: r.SessionLabel,
		Method: r.Method, Tool: r.Tool, Targets: r.Targets, Outcome: r.Outcome, Error: r.ErrorMessage,
		TraceID: r.TraceID, Duration: time.Duration(r.DurationMs) * time.Millisecond,
	}
	if r.MemberID != nil {
		e.MemberID = *r.MemberID
	}
	if r.MemberKind != nil {
		e.Kind = string(*r.MemberKind)
	}
	return e
}

// cut shortens s to at most n bytes on a rune boundary, for echoing
// input in a message.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
