package worker

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/services/audit"
)

// What an audit event keeps of a call, at most.
const (
	maxTargets    = 20
	maxTargetLen  = 100 // bytes of one target's value
	maxAuditError = 200 // bytes of a failure's message
)

// event describes the call as it ended with err; c.mu is held.
//
// Its error is the failure's message without a value a caller or a task
// could have written (domainerr.Redacted) when the call failed with a
// domain error; other failures are the worker's own statuses (refusals
// by scope or role, which name only role, tenant, tool and scope;
// Internal with its ref; cancellation), kept as they are.
func (c *auditedCall) event(err error) audit.Event {
	ctx, l := c.ctx, c.log
	rule, _ := methods.Lookup(c.method) // the chain looked it up already: cached
	e := audit.Event{
		OccurredAt:   l.now(),
		Method:       c.method,
		Tool:         rule.Tool(),
		Targets:      targets(c.req),
		Outcome:      audit.OutcomeOf(err),
		TraceID:      traceID(ctx),
		SessionLabel: identity.SessionLabel(ctx),
		Duration:     time.Since(c.start),
	}
	switch {
	case err == nil:
	case c.failed:
		e.Error = clip(c.failure, maxAuditError)
	default:
		e.Error = clip(status.Convert(err).Message(), maxAuditError)
	}
	switch id, ok := identity.FromContext(ctx); {
	case identity.IsOperator(ctx):
		// An operator acts on the tenant the request names, or on their
		// session's when it names none; a person is named, with their
		// session as the token.
		e.Kind, e.Tenant, e.Member = audit.KindOperator, operatorTenant(c.req), identity.OperatorPerson(ctx)
		if e.Tenant == "" && ok {
			e.Tenant = id.Tenant
		}
		if ok {
			e.TokenID = id.TokenID
		}
	case ok:
		e.Tenant, e.MemberID, e.TokenID = id.Tenant, id.Member, id.TokenID
	}
	if a := c.access; c.known && a.Tenant == e.Tenant && a.MemberID == e.MemberID {
		e.TenantID, e.Member, e.Kind, e.Sponsor = a.TenantID, a.Handle, a.Kind, a.Sponsor
	}
	return e
}

// targetFields are the request fields whose values name what a call acts
// on, as field=value in declaration order: string fields (or repeated
// strings) of these names only, so no free text (titles, notes, comments)
// ever reaches the log.
var targetFields = map[protoreflect.Name]bool{
	"ref": true, "refs": true, "board": true, "member": true, "handle": true, "jti": true, "tenant": true,
	"slug": true, // the board boards_create makes, the tenant CreateTenant makes
}

// targets returns what req names, at most maxTargets values.
func targets(req any) []string {
	m, ok := req.(proto.Message)
	if !ok {
		return nil
	}
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	var out []string
	add := func(name protoreflect.Name, v string) {
		if v = printable(v, maxTargetLen); v != "" && len(out) < maxTargets {
			out = append(out, string(name)+"="+v)
		}
	}
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !targetFields[fd.Name()] || fd.Kind() != protoreflect.StringKind || fd.IsMap() {
			continue
		}
		if !fd.IsList() {
			add(fd.Name(), r.Get(fd).String())
			continue
		}
		list := r.Get(fd).List()
		for j := 0; j < list.Len() && len(out) < maxTargets; j++ {
			add(fd.Name(), list.Get(j).String())
		}
	}
	return out
}

// operatorTenant is the tenant an operator's request names: its tenant
// field, or the slug of a tenant being created.
func operatorTenant(req any) string {
	m, ok := req.(proto.Message)
	if !ok {
		return ""
	}
	r := m.ProtoReflect()
	for _, name := range []protoreflect.Name{"tenant", "slug"} {
		if fd := r.Descriptor().Fields().ByName(name); fd != nil && fd.Kind() == protoreflect.StringKind && !fd.IsList() {
			if v := r.Get(fd).String(); v != "" {
				return clip(v, maxTargetLen)
			}
		}
	}
	return ""
}

// printable returns s without control characters, cut to at most n bytes.
func printable(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	return clip(s, n)
}

// clip cuts s to at most n bytes on a rune boundary, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
