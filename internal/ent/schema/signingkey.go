package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// SigningKey is a key tokens are signed with. It belongs to the deployment,
// not to a tenant. The private key is stored only sealed (AES-256-GCM)
// under a key derived from the deployment's root key (the configured key
// file); the public key is stored in clear, so verifying never needs the
// root key. The newest key without retired_at signs; a retired key still
// verifies until verify_until (services/keys).
type SigningKey struct {
	ent.Schema
}

// Fields of the SigningKey.
func (SigningKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("kid").NotEmpty().Unique().Immutable().
			Comment(`The JWT "kid" of the tokens the key signs.`),
		field.Bytes("public_key").NotEmpty().Immutable().
			Comment("The Ed25519 public key, in clear."),
		field.Bytes("sealed_key").NotEmpty().Immutable().Sensitive().
			Comment("The Ed25519 seed, sealed with AES-256-GCM under the root key named by wrapped_by: nonce, then ciphertext."),
		field.String("wrapped_by").NotEmpty().Immutable().
			Comment("The kid of the root key whose derived key sealed sealed_key."),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("retired_at").Optional().Nillable().
			Comment("When the key stopped signing; unset while it signs."),
		field.Time("verify_until").Optional().Nillable().
			Comment("When tokens the key signed stop verifying; unset while it signs."),
	}
}
