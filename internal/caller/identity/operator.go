package identity

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// MDOperator marks a call made by a platform operator: someone who runs the
// deployment and manages every tenant through the admin API. An operator
// is no member of any tenant, so such a call names no Caller. Front doors
// set it only after checking the operator secret; workers trust it only
// from a call carrying the internal key, and only for the methods they
// allow operators (see worker.Config.OperatorServices).
const MDOperator = "x-taskwire-operator"

// AppendOperatorToOutgoing marks the outgoing call of ctx as an operator's.
func AppendOperatorToOutgoing(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, MDOperator, "1")
}

// OperatorFromIncoming reports whether the incoming call is marked as an
// operator's. It says nothing of whether the mark can be trusted.
func OperatorFromIncoming(ctx context.Context) bool {
	v := metadata.ValueFromIncomingContext(ctx, MDOperator)
	return len(v) == 1 && v[0] == "1"
}

type operatorKey struct{}

// operatorMark is what an operator's call carries: who the operator is,
// when a person (empty for the operator secret).
type operatorMark struct{ person string }

// NewOperatorContext returns ctx marking its call as an operator's. Only
// the worker's interceptor chain sets it, once it trusts the mark.
func NewOperatorContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, operatorKey{}, operatorMark{})
}

// NewOperatorPersonContext returns ctx marking its call as that of an
// operator who is a person signed in to the console, named by person
// (their email, or their account if they have none) in logs and the
// audit log instead of the operator secret. Only the worker's interceptor
// chain sets it, once the person's session and account say so.
func NewOperatorPersonContext(ctx context.Context, person string) context.Context {
	return context.WithValue(ctx, operatorKey{}, operatorMark{person: person})
}

// IsOperator reports whether ctx carries an operator's call.
func IsOperator(ctx context.Context) bool {
	_, ok := ctx.Value(operatorKey{}).(operatorMark)
	return ok
}

// OperatorPerson returns the person making an operator's call, "" when
// the call came with the operator secret or is no operator's.
func OperatorPerson(ctx context.Context) string {
	m, _ := ctx.Value(operatorKey{}).(operatorMark)
	return m.person
}
