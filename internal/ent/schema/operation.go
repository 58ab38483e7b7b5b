package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Operation is one tool call running in the background for an MCP client
// (an MCP task of the io.modelcontextprotocol/tasks extension, not a task
// of a board): whichever front door the client polls reads it here,
// through a worker. The worker running it renews lease_until; a working
// operation whose lease has lapsed lost its worker. An operation waiting
// for a person's decision (input_required) runs on the worker that first
// sees the decision approved.
type Operation struct {
	ent.Schema
}

// Mixin of the Operation.
func (Operation) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}}
}

// Fields of the Operation.
func (Operation) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").NotEmpty().Unique().Immutable().
			Comment("Random and unguessable; the client's handle (taskId)."),
		field.Int("member_id").Immutable().
			Comment("The member who started it; only they can read or cancel it."),
		field.String("method").NotEmpty().Immutable(),
		field.Enum("state").Values("working", "input_required", "completed", "failed", "cancelled").Default("working"),
		field.String("decision").Default("").Immutable().
			Comment("The key of the decision a person makes before the call runs; empty: it runs at once."),
		field.Bytes("request").Optional().Nillable().
			Comment("The method's request, serialized, kept while the operation waits for its decision or the client's input."),
		field.Bytes("input_responses").Optional().Nillable().
			Comment("The client's answers so far (a JSON object by key) to the input the call asked for; it resumes once all are in."),
		field.String("status_message").Default(""),
		field.Bytes("response").Optional().Nillable().
			Comment("The method's response, serialized, once completed without error."),
		field.Bytes("error").Optional().Nillable().
			Comment("A google.rpc.Status, serialized: the method's error, or why the operation failed."),
		field.Bool("cancel_requested").Default(false).
			Comment("Set by tasks/cancel; the running worker checks it as it renews its lease."),
		field.Time("created_at").Default(now).Immutable(),
		field.Time("updated_at").Default(now),
		field.Time("lease_until").
			Comment("Renewed by the running worker; lapsed while working: the worker is gone."),
		field.Time("expires_at").Immutable().
			Comment("created_at plus the TTL the client was told; then the operation may be deleted."),
	}
}

// Indexes of the Operation.
func (Operation) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "member_id"),
		index.Fields("expires_at"),
	}
}
