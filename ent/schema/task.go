package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Task is one piece of work on a board. Its ref is "T-<number>", unique
// within the tenant.
type Task struct {
	ent.Schema
}

// Mixin of the Task.
func (Task) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Task.
func (Task) Fields() []ent.Field {
	return []ent.Field{
		field.Int("board_id"),
		field.Int("number").Positive().Immutable(),
		field.String("title").NotEmpty(),
		field.Text("note").Default(""),
		field.Enum("lane").Values("backlog", "next", "doing", "done").Default("backlog"),
		field.Enum("kind").Values("task", "bug", "feature", "chore").Default("task"),
		field.Enum("size").Values("xs", "s", "m", "l", "xl").Optional().Nillable(),
		field.JSON("assignee_ids", []int{}).Default([]int{}).
			Comment("Ids of the assigned members of the same tenant."),
		field.Int("version").Default(1).Positive().
			Comment("Rises by one with every change, for optimistic concurrency."),
		field.Int("created_by_id").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("updated_at").Default(now).UpdateDefault(now),
		field.Time("deleted_at").Optional().Nillable().
			Comment("Set while the task is deleted (soft delete); tasks_restore clears it."),
	}
}

// Edges of the Task.
func (Task) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("board", Board.Type).Ref("tasks").Field("board_id").Unique().Required(),
		edge.To("created_by", Member.Type).Field("created_by_id").Unique().Required().Immutable(),
		edge.To("comments", Comment.Type),
	}
}

// Indexes of the Task.
func (Task) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "number").Unique(),
		index.Fields("tenant_id", "board_id", "lane"),
	}
}
