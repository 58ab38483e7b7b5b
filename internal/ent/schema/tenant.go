package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Tenant is one organisation using Taskwire. Every other entity belongs to
// exactly one tenant through TenantMixin.
type Tenant struct {
	ent.Schema
}

// Fields of the Tenant.
func (Tenant) Fields() []ent.Field {
	return []ent.Field{
		field.String("slug").NotEmpty().Unique().Immutable().
			Comment(`Short name used in tokens and URLs, e.g. "acme".`),
		field.String("name").NotEmpty(),
		field.Int("task_seq").Default(0).NonNegative().
			Comment("The last task number handed out; bumped inside the creating transaction."),
		field.Int("comment_seq").Default(0).NonNegative().
			Comment("The last comment number handed out; bumped inside the creating transaction."),
		field.Int("note_seq").Default(0).NonNegative().
			Comment("The last context note number handed out; bumped inside the creating transaction."),
		field.Time("created_at").Default(now).Immutable(),
		field.String("imported_from").Optional().Nillable().Immutable().
			Comment("The export id of the archive the tenant was imported from (taskwire import): importing that archive again finds it and changes nothing. Nil for a tenant made here."),
	}
}
