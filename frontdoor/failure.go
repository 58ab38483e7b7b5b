package frontdoor

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/services/access"
)

// failure is an error response about to be sent.
type failure struct {
	// status is set by transport refusals (see refusal), whose status the
	// HTTP rules fix; zero means statusFor(err.Code, legacy).
	status int
	id     json.RawMessage // the request's id, nil when unknown
	err    *jsonrpc.Error
	header http.Header // extra response headers, e.g. WWW-Authenticate
	cause  error       // logged, never sent
}

// statusCode is the HTTP status of f in a request of the legacy era or
// not.
func (f *failure) statusCode(legacy bool) int {
	if f.status != 0 {
		return f.status
	}
	return statusFor(f.err.Code, legacy)
}

// statusFor maps a JSON-RPC error code to the HTTP status of its response.
// It is the one place that does, so every path agrees. A rate limit is 429
// in either era, and a request no worker could serve 503. Before 2026-07-28 any other JSON-RPC error went out with
// 200, as go-sdk still sends it to legacy clients: the transport rules of
// those revisions fix statuses only for their own refusals. Since, the
// spec fixes 404 and 400 for its codes; an internal error keeps 200 as in
// go-sdk, since the JSON-RPC body already says what happened.
func statusFor(code int, legacy bool) int {
	switch {
	case code == jsonrpc.RateLimited:
		return http.StatusTooManyRequests
	case code == jsonrpc.Unavailable:
		return http.StatusServiceUnavailable
	case legacy:
		return http.StatusOK
	}
	switch code {
	case jsonrpc.MethodNotFound:
		return http.StatusNotFound
	case jsonrpc.InvalidParams, jsonrpc.HeaderMismatch, jsonrpc.MissingRequiredClientCapability,
		jsonrpc.UnsupportedProtocolVersion, jsonrpc.InvalidRequest, jsonrpc.ParseError:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// refusal is a transport-level rejection, whose status the HTTP rules fix
// by what is refused (401, 403, 405, 413, 415, and the 400 and 404 of
// legacy sessions) rather than by its code. Its body is still a JSON-RPC
// error (without id, since the body was not read): a dual-era client that
// reads anything else in a 4xx falls back to the legacy handshake. The code
// is InvalidRequest because the request, as sent, cannot be served.
func refusal(status int, msg string, header http.Header) *failure {
	return &failure{status: status, err: &jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: msg}, header: header}
}

// failureFor translates an error of a method into its response: the one
// error translation of this boundary. It returns nil when the client has
// gone, since nothing can reach it.
func (x *exchange) failureFor(err error) *failure {
	var je *jsonrpc.Error
	var se *mcp.ScopeError
	var te *mcp.ToolsetError
	var nf *mcp.ResourceNotFoundError
	var re *mcp.RevokedError
	var ts *tooManyStreams
	var ue *mcp.UnavailableError
	switch {
	case x.r.Context().Err() != nil:
		x.cause = err
		return nil
	case x.cancelled.Load():
		x.cause = err
		x.out.abandon()
		return nil
	case errors.As(err, &je):
		return &failure{id: x.msg.ID, err: je}
	case access.IsDiskFull(err): // the store logs the episode
		return x.diskFull(err)
	case errors.As(err, &se):
		return x.h.insufficientScope(x.msg.ID, se)
	case errors.As(err, &te):
		return x.h.toolsetForbids(x.msg.ID, te)
	case errors.As(err, &nf):
		return &failure{id: x.msg.ID, err: x.resourceNotFound(nf)}
	case errors.As(err, &ts):
		return x.streamsRefused(ts)
	case errors.As(err, &ue):
		return x.unavailable(ue)
	case errors.As(err, &re):
		f := x.h.unauthorized(re.Reason, re.Reason, err)
		f.id = x.msg.ID
		return f
	}
	return x.internal(err)
}

// internal hides err from the client behind a neutral message and a short
// ref, derived from the error text so that the ref leads to the log record
// without revealing anything.
func (x *exchange) internal(err error) *failure {
	sum := sha256.Sum256([]byte(err.Error()))
	ref := hex.EncodeToString(sum[:4])
	return &failure{
		id:    x.msg.ID,
		err:   &jsonrpc.Error{Code: jsonrpc.Internal, Message: "internal error (ref " + ref + ")"},
		cause: fmt.Errorf("%w (ref %s)", err, ref),
	}
}

// unavailableRetry is how long a client is asked to wait before retrying
// a request no worker could serve: long enough that a storm of retries
// does not meet workers or a database as they come back, short next to
// how soon they do (a worker's breaker closes within a fifth of a second
// of its database answering).
const unavailableRetry = time.Second

// unavailableData is the data of a jsonrpc.Unavailable error.
type unavailableData struct {
	RetryAfterMs int64 `json:"retryAfterMs"`
}

// unavailable is the 503 of a request no worker could serve just now, in
// the shape of a rate limit's: the sentence a tool call gets, the wait in
// data and in Retry-After. Its cause is logged with the request.
func (x *exchange) unavailable(e *mcp.UnavailableError) *failure {
	return x.retryLater(mcp.UnavailableText, unavailableRetry, e)
}

// diskFullRetry is how long a client is asked to wait before retrying a
// request refused because the disk holding the database is full: someone
// has to free space first.
const diskFullRetry = 30 * time.Second

// diskFull is the 503 of a request refused because the disk holding the
// database is full, in the shape of an outage's with the worker's
// sentence.
func (x *exchange) diskFull(err error) *failure {
	return x.retryLater(access.DiskFullSentence, diskFullRetry, err)
}

// retryLater is a jsonrpc.Unavailable refusal saying msg and asking the
// client to wait at least wait, in data and in Retry-After.
func (x *exchange) retryLater(msg string, wait time.Duration, cause error) *failure {
	return &failure{
		id:     x.msg.ID,
		err:    &jsonrpc.Error{Code: jsonrpc.Unavailable, Message: msg, Data: unavailableData{RetryAfterMs: wait.Milliseconds()}},
		header: http.Header{"Retry-After": {strconv.Itoa(int(wait / time.Second))}},
		cause:  cause,
	}
}
