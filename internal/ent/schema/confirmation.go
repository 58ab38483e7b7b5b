package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Confirmation records that a person's confirmation of one destructive
// call was used. The front door seals each confirmation with a random id;
// the worker inserts that id in the same transaction as the change it
// allowed, so the unique index makes every confirmation single use across
// all replicas.
type Confirmation struct {
	ent.Schema
}

// Mixin of the Confirmation.
func (Confirmation) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Confirmation.
func (Confirmation) Fields() []ent.Field {
	return []ent.Field{
		field.String("nonce").NotEmpty().Immutable(),
		field.String("action").NotEmpty().Immutable(),
		field.Int("member_id").Immutable(),
		field.Time("created_at").Default(now).Immutable(),
	}
}

// Indexes of the Confirmation.
func (Confirmation) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "nonce").Unique(),
	}
}
