package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OAuthClient is an OAuth client an assistant connects through (MCP
// authorization): one registered by RFC 7591 dynamic registration, one
// whose Client ID Metadata Document was fetched (the row caches it until
// expires_at), or one the operator configured. It belongs to the
// deployment, not to a tenant.
type OAuthClient struct {
	ent.Schema
}

// Fields of the OAuthClient.
func (OAuthClient) Fields() []ent.Field {
	return []ent.Field{
		field.String("client_id").NotEmpty().Unique().Immutable().
			Comment("The client_id: an https URL for a metadata document, else a random id handed out at registration or the configured one."),
		field.Enum("kind").Values("registered", "metadata", "configured").Immutable(),
		field.String("name").Default("").
			Comment("The client_name, as the consent page shows it."),
		field.String("logo_uri").Default(""),
		field.String("client_uri").Default(""),
		field.JSON("redirect_uris", []string{}).
			Comment("Matched exactly, but for the port of a loopback redirect (RFC 8252)."),
		field.String("application_type").Default("web").
			Comment(`"web" or "native" (OpenID Connect Dynamic Registration).`),
		field.String("token_endpoint_auth_method").Default("none").
			Comment(`"none", "client_secret_post" or "client_secret_basic".`),
		field.Bytes("secret_hash").Optional().Sensitive().
			Comment("SHA-256 of the client secret of a confidential registered client; the secret is shown once."),
		field.String("document").Default("").
			Comment("The metadata document as fetched, for a metadata client."),
		field.String("registered_from").Default("").
			Comment("The address a registration came from."),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("last_used_at").Optional().Nillable().
			Comment("When a grant last used the client."),
		field.Time("expires_at").Optional().Nillable().
			Comment("A metadata document's cache expiry (fetched again after it); an unused registration's end."),
	}
}

// Indexes of the OAuthClient.
func (OAuthClient) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("kind", "expires_at"),
	}
}

// OAuthGrant is a person's consent for a client to act in a tenant as an
// assistant member they sponsor. Its codes, refresh tokens and access
// tokens end when it is revoked or reaches its absolute lifetime.
type OAuthGrant struct {
	ent.Schema
}

// Mixin of the OAuthGrant.
func (OAuthGrant) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the OAuthGrant.
func (OAuthGrant) Fields() []ent.Field {
	return []ent.Field{
		field.String("client_id").NotEmpty().Immutable(),
		field.Int("account_id").Immutable().
			Comment("The person who consented."),
		field.Int("person_id").Immutable().
			Comment("The person's member in the tenant: the assistant's sponsor."),
		field.Int("member_id").Immutable().
			Comment("The assistant member the client acts as; reused by the person's next grant to the same client."),
		field.JSON("scopes", []string{}).
			Comment("The scopes consented to, weakest first."),
		field.JSON("toolsets", []string{}).Default([]string{}).
			Comment("The toolsets the tokens are limited to; empty means all."),
		field.String("resource").NotEmpty().Immutable().
			Comment("The RFC 8707 resource: the MCP endpoint's canonical URI, the tokens' audience."),
		field.String("redirect_uri").Default("").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("expires_at").Immutable().
			Comment("The absolute lifetime: no refresh past it."),
		field.Time("revoked_at").Optional().Nillable(),
		field.String("revoked_why").Default("").
			Comment(`Why it was revoked, e.g. "revoked by alice", "a refresh token was used twice".`),
	}
}

// Indexes of the OAuthGrant.
func (OAuthGrant) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "client_id"),
		index.Fields("tenant_id", "revoked_at"),
	}
}

// OAuthCode is an authorization code: single use, short-lived, bound to
// its client, redirect URI, PKCE challenge and resource. Only a hash of
// the code is stored.
type OAuthCode struct {
	ent.Schema
}

// Fields of the OAuthCode.
func (OAuthCode) Fields() []ent.Field {
	return []ent.Field{
		field.Bytes("hash").NotEmpty().Unique().Immutable().Sensitive().
			Comment("SHA-256 of the code."),
		field.Int("grant_id").Immutable(),
		field.String("client_id").NotEmpty().Immutable(),
		field.String("redirect_uri").Immutable(),
		field.String("code_challenge").NotEmpty().Immutable(),
		field.String("resource").NotEmpty().Immutable(),
		field.JSON("scopes", []string{}).Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
	}
}

// Edges of the OAuthCode.
func (OAuthCode) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("grant", OAuthGrant.Type).Field("grant_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OAuthCode.
func (OAuthCode) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("expires_at"),
	}
}

// OAuthRefreshToken is a refresh token of a grant: opaque, stored only
// hashed, rotated on every use. A used one presented again means it was
// stolen, and revokes its grant.
type OAuthRefreshToken struct {
	ent.Schema
}

// Fields of the OAuthRefreshToken.
func (OAuthRefreshToken) Fields() []ent.Field {
	return []ent.Field{
		field.Bytes("hash").NotEmpty().Unique().Immutable().Sensitive().
			Comment("SHA-256 of the token."),
		field.Int("grant_id").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("expires_at").Immutable().
			Comment("The sliding lifetime: unused this long, it ends (and never past the grant's)."),
		field.Time("used_at").Optional().Nillable().
			Comment("When it was exchanged for the next one."),
	}
}

// Edges of the OAuthRefreshToken.
func (OAuthRefreshToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("grant", OAuthGrant.Type).Field("grant_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OAuthRefreshToken.
func (OAuthRefreshToken) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("grant_id"),
		index.Fields("expires_at"),
	}
}

// Annotations of the OAuthClient.
func (OAuthClient) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "oauth_clients"}}
}

// Annotations of the OAuthGrant.
func (OAuthGrant) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "oauth_grants"}}
}

// Annotations of the OAuthCode.
func (OAuthCode) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "oauth_codes"}}
}

// Annotations of the OAuthRefreshToken.
func (OAuthRefreshToken) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "oauth_refresh_tokens"}}
}
