package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Token records an access token that was minted: who it acts as, what it
// allows and whether it was revoked. The token itself is shown once and
// never stored; only its id (the JWT's jti) is, which is enough to list,
// revoke and refuse it but not to use it.
type Token struct {
	ent.Schema
}

// Mixin of the Token.
func (Token) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Token.
func (Token) Fields() []ent.Field {
	return []ent.Field{
		field.String("jti").NotEmpty().Unique().Immutable().
			Comment("The JWT's id: unique across tenants, since workers look tokens up by it alone."),
		field.Int("member_id").Immutable(),
		field.JSON("scopes", []string{}).Immutable().
			Comment("The scopes the token grants, weakest first."),
		field.String("label").Default("").
			Comment(`What the token is for, e.g. "laptop claude".`),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("last_used_at").Optional().Nillable().
			Comment("Set by the workers at most once a minute per token."),
		field.Time("revoked_at").Optional().Nillable(),
		field.JSON("toolsets", []string{}).Default([]string{}).Immutable().
			Comment("The toolsets the token is limited to; empty means all."),
		field.Enum("kind").Values("mcp", "admin").Default("mcp").Immutable().
			Comment("What the token is for: the MCP endpoint, or the admin API (a person's admin credential, with no scopes)."),
		field.String("issuer").Default("").Immutable().
			Comment(`The public URL the token was issued for (its "iss"); empty for tokens recorded before it was kept.`),
		field.String("kid").Default("").Immutable().
			Comment("The signing key that signed the token; empty for tokens recorded before it was kept. A retired key verifies until its tokens expire."),
		field.Int("grant_id").Optional().Nillable().Immutable().
			Comment("The OAuth grant the token was issued under; revoking the grant revokes it."),
	}
}

// Edges of the Token.
func (Token) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("member", Member.Type).Field("member_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Token.
func (Token) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "member_id"),
		index.Fields("revoked_at", "expires_at"),
		index.Fields("kid", "expires_at"),
		index.Fields("grant_id"),
	}
}
