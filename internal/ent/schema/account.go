package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Account is a person who can sign in to the console. It belongs to the
// deployment, not to a tenant: one account may be a member of several
// tenants, each through a Member row naming it (member.account_id).
type Account struct {
	ent.Schema
}

// Fields of the Account.
func (Account) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").Optional().Nillable().Unique().
			Comment("Lowercased; what the person signs in with. Unset for an owner who came in by the first start's link and has not set one yet."),
		field.String("display_name").Default(""),
		field.String("password_hash").Optional().Nillable().Sensitive().
			Comment("argon2id in the PHC string format; unset when the account signs in only by link or OIDC."),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("disabled_at").Optional().Nillable().
			Comment("The account may no longer sign in; its sessions were ended."),
		field.Bool("operator").Default(false).
			Comment("A platform operator of the deployment: in the console, this person may act as the operator secret does (every tenant, signing keys). The first start's owner is one; `taskwire admin operators` changes who."),
	}
}

// Passkey is a WebAuthn credential a person registered to sign in with,
// instead of a password. Only the public key is stored.
type Passkey struct {
	ent.Schema
}

// Fields of the Passkey.
func (Passkey) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").Immutable(),
		field.Bytes("credential_id").NotEmpty().Unique().Immutable().
			Comment("The authenticator's credential ID (raw bytes)."),
		field.Bytes("public_key").NotEmpty().Immutable().
			Comment("The COSE-encoded public key."),
		field.String("attestation_type").Default("").Immutable(),
		field.Bytes("aaguid").Optional().Immutable().
			Comment("Names the authenticator's model, when it says."),
		field.Uint32("sign_count").Default(0).
			Comment("The last signature counter seen; a lower one means a cloned authenticator."),
		field.Strings("transports").Optional().
			Comment(`How the browser reaches the authenticator: "internal", "usb", "hybrid", ...`),
		field.Bool("backup_eligible").Default(false).Immutable(),
		field.Bool("backup_state").Default(false),
		field.String("name").Default("").
			Comment("What the person called it, e.g. \"Laptop\"."),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("last_used_at").Optional().Nillable(),
	}
}

// Indexes of the Passkey.
func (Passkey) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id"),
	}
}

// AccountIdentity links an account to a person at an OpenID provider, by
// the provider's issuer and the person's subject there.
type AccountIdentity struct {
	ent.Schema
}

// Fields of the AccountIdentity.
func (AccountIdentity) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").Immutable(),
		field.String("issuer").NotEmpty().Immutable(),
		field.String("subject").NotEmpty().Immutable(),
		field.String("email").Default("").
			Comment("The verified email the provider last reported."),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("last_used_at").Optional().Nillable(),
	}
}

// Indexes of the AccountIdentity.
func (AccountIdentity) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("issuer", "subject").Unique(),
		index.Fields("account_id"),
	}
}

// Session is one browser signed in to the console. The cookie holds the
// session's id and a secret; only the secret's SHA-256 is stored.
type Session struct {
	ent.Schema
}

// Fields of the Session.
func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.String("sid").NotEmpty().Unique().Immutable().
			Comment("Public: names the session as the caller's token id and in the audit log."),
		field.Bytes("secret_hash").NotEmpty().Immutable().Sensitive().
			Comment("SHA-256 of the cookie's secret."),
		field.Int("account_id").Immutable(),
		field.String("method").NotEmpty().Immutable().
			Comment(`How it signed in: "password", "link" or "oidc".`),
		field.String("user_agent").Default("").Immutable(),
		field.String("client_addr").Default("").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("last_seen_at").Default(now).
			Comment("Updated at most once a minute; the idle timeout counts from it."),
		field.Time("expires_at").Immutable().
			Comment("The absolute end of the session, however active."),
		field.Time("ended_at").Optional().Nillable().
			Comment("Signed out (here or everywhere), or ended when the account was disabled."),
	}
}

// Indexes of the Session.
func (Session) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id"),
		index.Fields("expires_at"),
	}
}

// SignInLink is a one-time link that signs a person in: the first start's
// link for the owner, an invitation, or one an admin made. Only the
// secret's SHA-256 is stored.
type SignInLink struct {
	ent.Schema
}

// Fields of the SignInLink.
func (SignInLink) Fields() []ent.Field {
	return []ent.Field{
		field.Bytes("secret_hash").NotEmpty().Unique().Immutable().Sensitive(),
		field.Int("account_id").Immutable(),
		field.Enum("purpose").Values("sign_in", "invitation").Immutable(),
		field.Int("tenant_id").Optional().Nillable().Immutable().
			Comment("The tenant of the member it was made for or invites to."),
		field.Int("member_id").Optional().Nillable().Immutable(),
		field.Int("created_by").Optional().Nillable().Immutable().
			Comment("The member who made it; unset for the first start and operators."),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
	}
}

// Indexes of the SignInLink.
func (SignInLink) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id"),
	}
}
