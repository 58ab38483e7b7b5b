package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
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
		field.JSON("labels", []string{}).Default([]string{}).
			Comment("Lowercase labels, sorted."),
		field.String("project").Default(""),
		field.Int("position").Default(0).
			Comment("Order within the lane, smallest first; gaps allowed, renumbered by moves."),
		field.Bool("flagged").Default(false),
		field.String("flag_reason").Default(""),
		field.JSON("text_author_ids", []int{}).Default([]int{}).
			Comment("Members who wrote the title or note: the task's text is trusted only by a caller who is the sole author."),
	}
}

// Edges of the Task.
func (Task) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("board", Board.Type).Ref("tasks").Field("board_id").Unique().Required(),
		edge.To("created_by", Member.Type).Field("created_by_id").Unique().Required().Immutable(),
		edge.To("comments", Comment.Type),
		edge.To("links", TaskLink.Type),
		edge.To("work", WorkItem.Type).Unique(),
		// A task's title tokens go with it, should it ever be deleted for good.
		edge.To("title_tokens", TaskTitleToken.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Hooks of the Task: its title tokens follow its title and board.
func (Task) Hooks() []ent.Hook {
	return []ent.Hook{indexTitle()}
}

// Indexes of the Task.
func (Task) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "number").Unique(),
		index.Fields("tenant_id", "board_id", "lane", "position"),
		index.Fields("tenant_id", "updated_at"),
	}
}
