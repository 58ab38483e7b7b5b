package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	gen "github.com/taskwire/taskwire/internal/ent"
)

// Comment is a remark by a member on a task.
type Comment struct {
	ent.Schema
}

// Mixin of the Comment.
func (Comment) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Comment.
func (Comment) Fields() []ent.Field {
	return []ent.Field{
		field.Int("number").Optional().Immutable().
			Comment("The comment's number in its tenant, what callers know it by; set on creation (numberInTenant). Null only for rows a migration has not numbered yet."),
		field.Int("task_id").Immutable(),
		field.Int("author_id").Immutable(),
		field.Text("body").NotEmpty(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("edited_at").Optional().Nillable(),
		field.Int("version").Default(1).Positive().
			Comment("Rises by one with every edit, for optimistic concurrency."),
	}
}

// Edges of the Comment.
func (Comment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("task", Task.Type).Ref("comments").Field("task_id").Unique().Required().Immutable(),
		edge.To("author", Member.Type).Field("author_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Comment.
func (Comment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "task_id"),
		index.Fields("tenant_id", "number").Unique(),
	}
}

// Hooks of the Comment: a new comment takes its tenant's next number.
func (Comment) Hooks() []ent.Hook {
	return []ent.Hook{numberInTenant(func(u *gen.TenantUpdateOne) *gen.TenantUpdateOne { return u.AddCommentSeq(1) },
		func(t *gen.Tenant) int { return t.CommentSeq })}
}
