package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Decision is a call only a person may allow: a destructive tool an
// assistant called, waiting for a signed-in person of the tenant to
// approve or decline it in the console. An approved decision allows its
// one call once: the worker sets used_at in the same transaction as the
// change.
type Decision struct {
	ent.Schema
}

// Mixin of the Decision.
func (Decision) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Decision.
func (Decision) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").NotEmpty().Unique().Immutable().
			Comment("Random; names the decision in the console's URL and in the sealed request state."),
		field.String("tool").NotEmpty().Immutable(),
		field.String("question").NotEmpty().Immutable(),
		field.Text("arguments").Immutable().
			Comment("The call's arguments as JSON, shown to the person."),
		field.String("digest").NotEmpty().Immutable().
			Comment("Of the canonical arguments: binds the decision to them."),
		field.Int("requested_by").Immutable().
			Comment("The member who called the tool."),
		field.Enum("state").Values("pending", "approved", "declined").Default("pending"),
		field.Int("decided_by").Optional().Nillable(),
		field.String("reason").Default(""),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("decided_at").Optional().Nillable(),
		field.Time("expires_at").Immutable().
			Comment("A pending decision no one made by then is expired."),
		field.Time("used_at").Optional().Nillable(),
	}
}

// Indexes of the Decision.
func (Decision) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "state", "created_at"),
		index.Fields("tenant_id", "requested_by", "tool", "digest"),
	}
}
