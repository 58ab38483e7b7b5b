package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IdempotencyKey records the first result of a write made with an
// idempotency key, so a retry with the same key returns it instead of
// writing again. It is inserted in the write's own transaction: the write
// and its record commit together or not at all.
type IdempotencyKey struct {
	ent.Schema
}

// Mixin of the IdempotencyKey.
func (IdempotencyKey) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the IdempotencyKey.
func (IdempotencyKey) Fields() []ent.Field {
	return []ent.Field{
		field.Int("member_id").Immutable(),
		field.String("key").NotEmpty().Immutable(),
		field.String("method").NotEmpty().Immutable().
			Comment(`The RPC, e.g. "/taskwire.v1.BoardService/CreateTask".`),
		field.Bytes("request_digest").Immutable().
			Comment("SHA-256 of the request: the same key with other arguments is refused."),
		field.Bytes("response").Optional().
			Comment("The first result, as a serialized protobuf message."),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the IdempotencyKey.
func (IdempotencyKey) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "member_id", "key").Unique(),
		index.Fields("created_at"),
	}
}
