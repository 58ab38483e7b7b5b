package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Member is a person or an assistant acting in one tenant.
type Member struct {
	ent.Schema
}

// Mixin of the Member.
func (Member) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Member.
func (Member) Fields() []ent.Field {
	return []ent.Field{
		field.Int("id").Immutable().
			Comment("Random for members created since schema version 2 (randomID), the sequence's before: it is the subject of tokens, so it must not count the platform's members."),
		field.String("handle").NotEmpty().Immutable().
			Comment(`Unique within the tenant, e.g. "alice"; never changes, so workers may remember it.`),
		field.String("display_name"),
		field.Enum("kind").Values("human", "assistant").Immutable(),
		field.Enum("role").Values("owner", "admin", "member", "viewer"),
		field.Int("sponsor_id").Optional().Nillable().
			Comment("For an assistant: the human member answerable for it."),
		field.Time("created_at").Default(now).Immutable(),
		field.Int("account_id").Optional().Nillable().
			Comment("For a person: the account that signs in as this member; unset until they first sign in or are invited."),
		field.Time("removed_at").Optional().Nillable().
			Comment("The member was removed: their tokens are revoked and they can no longer act; kept for the audit trail and their comments."),
	}
}

// Edges of the Member.
func (Member) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("sponsored", Member.Type).
			From("sponsor").Field("sponsor_id").Unique(),
	}
}

// Indexes of the Member.
func (Member) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "handle").Unique(),
		// An account is at most one member of each tenant.
		index.Fields("account_id", "tenant_id").Unique(),
	}
}

// Hooks of the Member: a new member gets a random id.
func (Member) Hooks() []ent.Hook {
	return []ent.Hook{randomID()}
}
