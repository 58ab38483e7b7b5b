package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WorkItem is a task a person approved for assistants, and the lease of
// the assistant working on it. fence rises with every claim: a lease token
// carries the fence it was issued under, so a token from an earlier claim
// is refused (fencing).
type WorkItem struct {
	ent.Schema
}

// Mixin of the WorkItem.
func (WorkItem) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the WorkItem.
func (WorkItem) Fields() []ent.Field {
	return []ent.Field{
		field.Int("task_id").Unique().Immutable(),
		field.Int("board_id"),
		field.Enum("state").Values("approved", "claimed", "completed", "exhausted").Default("approved").
			Comment("approved: waiting in the queue; claimed: under a lease (which may have lapsed); completed; exhausted: claimed max_claims times and released or lapsed."),
		field.Text("plan").NotEmpty(),
		field.Int("approved_by_id"),
		field.Time("approved_at").Default(now),
		field.Int("lease_minutes").Positive(),
		field.Int("max_claims").Positive(),
		field.Int("claims").Default(0).NonNegative(),
		field.Int("fence").Default(0).NonNegative().
			Comment("Rises with every claim; lease tokens carry it."),
		field.Int("holder_id").Optional().Nillable(),
		field.Bytes("lease_secret_hash").Optional().Nillable().Sensitive().
			Comment("SHA-256 of the current lease token's secret; the token itself is never stored."),
		field.Time("lease_expires_at").Optional().Nillable(),
		field.Text("last_release_reason").Default(""),
		field.Enum("test_status").Values("passed", "failed", "not_run").Optional().Nillable(),
		field.Time("completed_at").Optional().Nillable(),
	}
}

// Edges of the WorkItem.
func (WorkItem) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("task", Task.Type).Ref("work").Field("task_id").Unique().Required().Immutable(),
	}
}

// Indexes of the WorkItem.
func (WorkItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "state", "approved_at"),
	}
}
