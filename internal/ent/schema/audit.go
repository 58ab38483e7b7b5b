package schema

import (
	"context"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/taskwire/taskwire/internal/ent/privacy"
)

// AuditEvent is one call a member (or a platform operator) made to a
// worker: who, with which token, what it named and how it ended. Workers
// write it as the call ends (services/audit); owners and admins read it.
// Unlike Activity, which records the changes writes made, it records every
// call, reads and refusals included, and never what the call carried (no
// task text). Rows are never updated; the member's handle, kind and
// sponsor are copied as they were, so the trail outlives renames and
// removals.
type AuditEvent struct {
	ent.Schema
}

// Mixin of the AuditEvent.
func (AuditEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the AuditEvent.
func (AuditEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Time("occurred_at").Default(now).Immutable().
			Comment("When the call ended."),
		field.Int("member_id").Optional().Nillable().Immutable().
			Comment("The calling member; unset for a platform operator's call."),
		field.String("member_handle").Default("").Immutable().
			Comment("The member's handle when the call was made."),
		field.Enum("member_kind").Values("human", "assistant", "operator").Optional().Nillable().Immutable().
			Comment("The caller's kind when the call was made; unset when the member could not be found."),
		field.String("sponsor_handle").Default("").Immutable().
			Comment("For an assistant: the handle of its sponsor when the call was made."),
		field.String("token_id").Default("").Immutable().
			Comment("The jti of the token the call was made with."),
		field.String("session_label").Default("").Immutable().
			Comment("The label the client gave its session, if any: set by the client, never trusted."),
		field.String("method").NotEmpty().Immutable().
			Comment(`The full gRPC method, e.g. "/taskwire.v1.BoardService/MoveTask".`),
		field.String("tool").Default("").Immutable().
			Comment(`The MCP tool of the method, e.g. "tasks_move"; empty for other methods.`),
		field.JSON("targets", []string{}).Optional().Immutable().
			Comment(`What the request named, as field=value, e.g. "ref=T-12".`),
		field.String("outcome").NotEmpty().Immutable().
			Comment(`"ok", "refused", or the gRPC code name of the failure, e.g. "NotFound".`),
		field.String("error_message").Default("").Immutable().
			Comment("The message the caller got for a failure, shortened."),
		field.String("trace_id").Default("").Immutable().
			Comment("The W3C trace id the call carried, if any."),
		field.Int64("duration_ms").Default(0).NonNegative().Immutable(),
	}
}

// Indexes of the AuditEvent.
func (AuditEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "occurred_at"),
		index.Fields("tenant_id", "member_id"),
	}
}

// Policy of the AuditEvent: on top of the tenant rule, the trail is
// append-only. Deletes stay possible, for retention.
func (AuditEvent) Policy() ent.Policy {
	return privacy.Policy{
		Mutation: privacy.MutationPolicy{
			privacy.MutationRuleFunc(func(_ context.Context, m ent.Mutation) error {
				if m.Op().Is(ent.OpUpdate | ent.OpUpdateOne) {
					return privacy.Denyf("audit events are never changed")
				}
				return privacy.Skip
			}),
		},
	}
}
