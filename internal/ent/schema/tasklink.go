package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// TaskLink ties one task to another of the same tenant. "blocked by" is
// stored as the other task's "blocks", so each relation has one row.
type TaskLink struct {
	ent.Schema
}

// Mixin of the TaskLink.
func (TaskLink) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the TaskLink.
func (TaskLink) Fields() []ent.Field {
	return []ent.Field{
		field.Int("from_task_id").Immutable(),
		field.Int("to_task_id").Immutable(),
		field.Enum("kind").Values("blocks", "relates_to", "duplicates").Immutable(),
		field.Int("created_by_id").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of the TaskLink.
func (TaskLink) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("from_task", Task.Type).Ref("links").Field("from_task_id").Unique().Required().Immutable(),
		edge.To("to_task", Task.Type).Field("to_task_id").Unique().Required().Immutable(),
	}
}

// Indexes of the TaskLink.
func (TaskLink) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "from_task_id", "to_task_id", "kind").Unique(),
		index.Fields("tenant_id", "to_task_id"),
	}
}
