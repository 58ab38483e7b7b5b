package frontdoor

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/services/access"
)

// notificationsOp is the operation every notification is charged to: a
// client may name any method in one, and none needs a budget of its own.
const notificationsOp = "notifications"

// maxNameInKey bounds the tool name in an operation: MCP tool names have
// at most 128 characters, so a longer one names no tool, and a client
// must not make the front door hold long keys.
const maxNameInKey = 128

// operation names the buckets a request is charged to: its method, and
// for tools/call the tool too.
func operation(method string, params map[string]json.RawMessage) string {
	if method != "tools/call" {
		return method
	}
	name, _ := str(params, "name")
	if len(name) > maxNameInKey {
		name = strings.ToValidUTF8(name[:maxNameInKey], "")
	}
	return method + ":" + name
}

// admitRate charges the request to its caller's buckets for op, or
// answers 429 and returns false. It runs after authentication and after
// every check the front door makes alone, so nothing those refuse is
// charged; what the method refuses later gets its charge back (refund).
// The budget left goes with the request's context to the tool backend,
// for whoami.
func (x *exchange) admitRate(op string) bool {
	rl := x.h.cfg.RateLimiter
	if rl == nil {
		return true
	}
	ch, over := rl.take(x.caller, op)
	if over != nil {
		x.fail(x.rateLimited(over))
		return false
	}
	x.charge = ch
	x.r = x.r.WithContext(access.NewBudgetContext(x.r.Context(), ch.budget))
	return true
}

// admitLegacyRate charges a message of a legacy client: a request of a
// method served (initialize included) by method and tool, any
// notification to notificationsOp. A response answers a request of the
// server's own and is never limited; an unknown method is left to be
// refused, uncharged. It runs before the session is opened, so a message
// whose session is refused (400, 404) is charged, then refunded.
func (x *exchange) admitLegacyRate() bool {
	m := x.msg
	switch {
	case m.Kind == jsonrpc.Notification:
		return x.admitRate(notificationsOp)
	case m.Kind != jsonrpc.Request:
		return true
	case m.Method != "initialize" && legacyMethods[m.Method] == nil:
		return true
	}
	params, _ := object(m.Params)
	return x.admitRate(operation(m.Method, params))
}

// refund gives the request's charge back when f refuses it: a request
// the server refused for another reason than a limit costs nothing (one
// no worker could serve included: jsonrpc.Unavailable). An
// internal error keeps its charge, since the server did the work, and so
// does a request whose client left (f nil), or one refused by another
// limit (too many listen streams), so that retrying it in a loop spends
// the budget as any request does.
func (x *exchange) refund(f *failure) {
	if f.err.Code == jsonrpc.Internal || f.err.Code == jsonrpc.RateLimited {
		return
	}
	x.giveBack()
}

// giveBack returns the request's charge, if any: a tool call that no
// worker could serve, as well as refund's refusals.
func (x *exchange) giveBack() {
	if x.charge == nil {
		return
	}
	x.charge.giveBack()
	x.charge = nil
}

// rateLimitData is the data of a jsonrpc.RateLimited error.
type rateLimitData struct {
	RetryAfterMs int64  `json:"retryAfterMs"`
	Limit        string `json:"limit"` // "token" or "tenant"
	Key          string `json:"key"`   // the operation, e.g. "tools/call:tasks_create"
}

// rateLimited is the 429 of a request over a limit. A notification gets
// it too: the transport answers a notification it does not accept with a
// 4xx status, and the body, a JSON-RPC error without id, is what every
// refusal of this endpoint carries.
func (x *exchange) rateLimited(o *Refusal) *failure {
	secs := o.RetryAfter()
	ms := max(1, int64(math.Ceil(float64(o.Wait)/float64(time.Millisecond))))
	whose, shared := "this token's", ""
	if o.Level == "tenant" {
		whose, shared = "the tenant's", ", shared by all its tokens,"
	}
	msg := fmt.Sprintf("rate limited: %s budget for %s (%s)%s is spent; retry in %d s", whose, o.Op, o.Limit, shared, secs)
	f := &failure{
		err:    &jsonrpc.Error{Code: jsonrpc.RateLimited, Message: msg, Data: rateLimitData{RetryAfterMs: ms, Limit: o.Level, Key: o.Op}},
		header: http.Header{"Retry-After": {strconv.FormatInt(secs, 10)}},
		cause:  fmt.Errorf("rate limited: %s budget for %s", o.Level, o.Op),
	}
	if x.msg.Kind == jsonrpc.Request {
		f.id = x.msg.ID
	}
	return f
}

// throttled refuses a request from addr when it made too many without a
// valid token lately (AuthThrottle): 429 before the token is even looked
// at. A 401 counts against the address (admit); a malformed request
// (400) does not, as it guesses nothing.
func throttled(t *AuthThrottle, addr netip.Addr) *failure {
	if wait, refused := t.Refuses(addr); refused {
		return authThrottled(t, wait)
	}
	return nil
}

// authThrottled is the 429 of a request from an address that used up its
// failures: the shape of a rate limit's, without id, since the body was
// not read.
func authThrottled(t *AuthThrottle, wait time.Duration) *failure {
	secs := RetryAfter(wait)
	msg := fmt.Sprintf("too many requests without a valid token from your address (%s); retry in %d s with a valid token",
		t.Allowance(), secs)
	return &failure{
		err: &jsonrpc.Error{Code: jsonrpc.RateLimited, Message: msg, Data: rateLimitData{
			RetryAfterMs: max(1, wait.Milliseconds()), Limit: "address", Key: "unauthenticated",
		}},
		header: http.Header{"Retry-After": {strconv.FormatInt(secs, 10)}},
		cause:  errors.New("throttled: too many requests without a valid token from this address"),
	}
}
