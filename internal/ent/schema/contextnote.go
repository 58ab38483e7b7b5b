package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	gen "github.com/taskwire/taskwire/internal/ent"
)

// ContextNote is a note a member leaves on a board for everyone working on
// it: a decision, a convention, a link.
type ContextNote struct {
	ent.Schema
}

// Mixin of the ContextNote.
func (ContextNote) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the ContextNote.
func (ContextNote) Fields() []ent.Field {
	return []ent.Field{
		field.Int("number").Optional().Immutable().
			Comment("The note's number in its tenant, what callers know it by; set on creation (numberInTenant). Null only for rows a migration has not numbered yet."),
		field.Int("board_id").Immutable(),
		field.Int("author_id").Immutable(),
		field.Text("body").NotEmpty(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Edges of the ContextNote.
func (ContextNote) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("board", Board.Type).Field("board_id").Unique().Required().Immutable(),
		edge.To("author", Member.Type).Field("author_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ContextNote.
func (ContextNote) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "board_id", "created_at"),
		index.Fields("tenant_id", "number").Unique(),
	}
}

// Hooks of the ContextNote: a new note takes its tenant's next number.
func (ContextNote) Hooks() []ent.Hook {
	return []ent.Hook{numberInTenant(func(u *gen.TenantUpdateOne) *gen.TenantUpdateOne { return u.AddNoteSeq(1) },
		func(t *gen.Tenant) int { return t.NoteSeq })}
}
