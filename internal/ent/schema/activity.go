package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Activity is the audit trail: one row per write, naming who did what.
type Activity struct {
	ent.Schema
}

// Mixin of the Activity.
func (Activity) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Activity.
func (Activity) Fields() []ent.Field {
	return []ent.Field{
		field.Int("actor_id").Immutable(),
		field.Enum("actor_kind").Values("human", "assistant").Immutable().
			Comment("The actor's kind when it acted, kept even if the member changes."),
		field.Int("task_id").Optional().Nillable().Immutable(),
		field.String("action").NotEmpty().Immutable().
			Comment(`What happened, e.g. "task.created", "task.moved", "comment.added".`),
		field.JSON("detail", map[string]any{}).Optional().Immutable(),
		field.String("client").Default("").Immutable().
			Comment("The client the actor acted through, in its own words (the session label); empty from the console. Information only."),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of the Activity.
func (Activity) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("actor", Member.Type).Field("actor_id").Unique().Required().Immutable(),
		edge.To("task", Task.Type).Field("task_id").Unique().Immutable(),
	}
}

// Indexes of the Activity.
func (Activity) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "task_id"),
		index.Fields("tenant_id", "created_at"),
	}
}
