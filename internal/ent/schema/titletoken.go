package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// TaskTitleToken is one word of a task's title (see titlematch):
// the index through which a new title finds the tasks it may repeat,
// without reading every task of the board. Rows are written with the
// task, in its transaction, by the Task's hook (indexTitle); a deleted or
// done task keeps its rows, since the look-up joins the task and keeps
// only open ones.
type TaskTitleToken struct {
	ent.Schema
}

// Mixin of the TaskTitleToken.
func (TaskTitleToken) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the TaskTitleToken.
func (TaskTitleToken) Fields() []ent.Field {
	return []ent.Field{
		field.Int("board_id").
			Comment("The task's board, so that a look-up stays within one board."),
		field.Int("task_id"),
		field.String("token").
			Comment("A word of the title; empty for a title without words."),
		field.Int("words").NonNegative().
			Comment("How many distinct words the title has: similar titles have close counts."),
	}
}

// Edges of the TaskTitleToken.
func (TaskTitleToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("task", Task.Type).Ref("title_tokens").Field("task_id").Unique().Required(),
	}
}

// Indexes of the TaskTitleToken.
func (TaskTitleToken) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "board_id", "token", "words"),
		index.Fields("task_id"),
	}
}
