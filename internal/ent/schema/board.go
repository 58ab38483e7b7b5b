package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Board is a set of lanes holding tasks. The lanes are fixed for now:
// backlog, next, doing, done.
type Board struct {
	ent.Schema
}

// Mixin of the Board.
func (Board) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Board.
func (Board) Fields() []ent.Field {
	return []ent.Field{
		field.String("slug").NotEmpty().Immutable().
			Comment(`Unique within the tenant, e.g. "main"; never changes, so workers may remember it.`),
		field.String("name"),
		field.Bool("is_default").Default(false),
		field.Text("rules").Default("").
			Comment("Standing rules for work on the board, in Markdown."),
		field.JSON("wip_limits", map[string]int{}).Default(map[string]int{}).
			Comment("The most tasks a lane may hold, by lane name; a lane left out has no limit."),
		field.Time("created_at").Default(now).Immutable(),
		field.Strings("kinds").Optional().
			Comment(`The task kinds the board takes ("task", "bug", "feature", "chore"); empty: every kind.`),
		field.Int("version").Default(1).
			Comment("Counts changes to name, rules, WIP limits and kinds, for boards_update's expected_version."),
		field.Time("archived_at").Optional().Nillable().
			Comment("When the board was archived: still readable, but it takes no new tasks, moves or imports. Nil while it is in use."),
	}
}

// Edges of the Board.
func (Board) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("tasks", Task.Type),
	}
}

// Indexes of the Board.
func (Board) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "slug").Unique(),
	}
}
