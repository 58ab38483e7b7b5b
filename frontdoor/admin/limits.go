package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// The admin API's limits: a rate limit per credential and per tenant, and
// the throttle of requests without a valid credential per client address,
// which the MCP endpoint shares. Both refuse with RESOURCE_EXHAUSTED over
// gRPC (with a RetryInfo detail and a retry-after header) and 429 with
// Retry-After in JSON, before the call reaches a worker.

// adminOp is the operation every admin call is charged to: the admin API
// has one budget as a whole, per credential and per tenant, since no
// script needs many calls of one method while it makes few of the others.
const adminOp = "admin"

// operatorKey is the credential key of the operator secret: every
// operator shares it.
const operatorKey = "operator secret"

// admit charges a call of p, or returns the status that refuses it: a
// credential (a token by its jti, the operator secret) and a tenant each
// have a bucket. An operator's call is charged to the tenant its request
// in names, and one naming none (ListTenants, CreateTenant, the keys) to
// its credential only. A tenant token's call is charged to its own
// tenant, whatever in names: it may act on no other (services/admin), and
// charging the one it names would let one tenant's admins spend
// another's budget.
func (e *Edge) admit(p principal, in proto.Message) (retryAfter int64, refusal error) {
	if e.cfg.RateLimiter == nil {
		return 0, nil
	}
	subject := identity.Caller{TokenID: operatorKey, Tenant: tenantOf(in)}
	if !p.operator {
		subject = identity.Caller{TokenID: p.caller.TokenID, Tenant: p.caller.Tenant}
	}
	r := e.cfg.RateLimiter.Admit(subject, adminOp)
	if r == nil {
		return 0, nil
	}
	msg := fmt.Sprintf("too many admin calls: the budget of this credential (%s) is spent; retry in %d s", r.Limit, r.RetryAfter())
	if r.Level == "tenant" {
		msg = fmt.Sprintf("too many admin calls on tenant %s: its budget (%s), shared by everyone who manages it, is spent; retry in %d s",
			subject.Tenant, r.Limit, r.RetryAfter())
	}
	return r.RetryAfter(), exhausted(msg, r.Wait)
}

// tenantOf is the tenant a request names in its tenant field, "" when it
// has none or leaves it empty.
func tenantOf(in proto.Message) string {
	m := in.ProtoReflect()
	f := m.Descriptor().Fields().ByName("tenant")
	if f == nil || f.Kind() != protoreflect.StringKind {
		return ""
	}
	return m.Get(f).String()
}

// throttled returns the status refusing a request from addr, which made
// too many without a valid credential lately; nil when it may go on.
func (e *Edge) throttled(addr netip.Addr) (retryAfter int64, refusal error) {
	t := e.cfg.AuthThrottle
	wait, refused := t.Refuses(addr)
	if !refused {
		return 0, nil
	}
	secs := frontdoor.RetryAfter(wait)
	msg := fmt.Sprintf("too many requests without a valid credential from your address (%s); retry in %d s with a valid one",
		t.Allowance(), secs)
	return secs, exhausted(msg, wait)
}

// failed counts a request of addr whose credential was refused.
func (e *Edge) failed(addr netip.Addr, err error) {
	if status.Code(err) == codes.Unauthenticated {
		e.cfg.AuthThrottle.Failed(addr)
	}
}

// exhausted is a RESOURCE_EXHAUSTED status saying when to retry.
func exhausted(msg string, wait time.Duration) error {
	st := status.New(codes.ResourceExhausted, msg)
	if d, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(wait)}); err == nil {
		st = d
	}
	return st.Err()
}

// writeLimited writes the JSON refusal of a limit, with Retry-After.
func writeLimited(w http.ResponseWriter, err error, retryAfter int64) {
	w.Header().Set("Retry-After", strconv.FormatInt(retryAfter, 10))
	writeStatus(w, err)
}

// grpcLimited returns the gRPC refusal of a limit, with a retry-after
// header for clients that read no status details.
func grpcLimited(ctx context.Context, err error, retryAfter int64) error {
	_ = grpc.SetHeader(ctx, metadata.Pairs("retry-after", strconv.FormatInt(retryAfter, 10)))
	return err
}

type clientAddrKey struct{}

// withClientAddr keeps the client address of a gRPC call's HTTP request
// in its context, where the interceptor finds it.
func (e *Edge) withClientAddr(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, e.cfg.AuthThrottle.ClientAddr(r)))
}

func clientAddr(ctx context.Context) netip.Addr {
	a, _ := ctx.Value(clientAddrKey{}).(netip.Addr)
	return a
}
