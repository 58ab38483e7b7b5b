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

// NewOperatorContext returns ctx marking its call as an operator's. Only
// the worker's interceptor chain sets it, once it trusts the mark.
func NewOperatorContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, operatorKey{}, true)
}

// IsOperator reports whether ctx carries an operator's call.
func IsOperator(ctx context.Context) bool {
	v, _ := ctx.Value(operatorKey{}).(bool)
	return v
}
