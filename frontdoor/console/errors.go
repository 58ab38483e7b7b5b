package console

import (
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// rpcFailed shows a person what a worker's refusal means and what to do:
// the one translation of gRPC status to a page. The worker's message is
// written for whoever called (it names the task, the limit, the role);
// internal errors carry only a reference.
func (c *Console) rpcFailed(w http.ResponseWriter, r *http.Request, v *visit, err error) {
	code, msg := c.rpcMessage(r, v, err)
	c.fail(w, r, v, code, msg)
}

// rpcMessage is the HTTP status and the sentence of a worker's refusal.
func (c *Console) rpcMessage(r *http.Request, v *visit, err error) (int, string) {
	st := status.Convert(err)
	code, msg := http.StatusInternalServerError, st.Message()
	switch st.Code() {
	case codes.InvalidArgument, codes.OutOfRange:
		code = http.StatusBadRequest
	case codes.NotFound:
		code = http.StatusNotFound
	case codes.FailedPrecondition, codes.Aborted, codes.AlreadyExists:
		code = http.StatusConflict
	case codes.PermissionDenied:
		code, msg = http.StatusForbidden, "Your role ("+roleName(v)+") does not allow this. "+msg
	case codes.Unauthenticated:
		code, msg = http.StatusUnauthorized, msg+" Sign in again."
	case codes.ResourceExhausted:
		code = http.StatusTooManyRequests
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		code, msg = http.StatusServiceUnavailable, "Taskwire could not reach its workers in time. Try again in a moment."
	default:
		c.log.ErrorContext(r.Context(), "console call failed", "path", r.URL.Path, "err", err)
		msg = "Something went wrong on our side (" + msg + "). Try again; if it keeps happening, tell your administrator."
	}
	return code, msg
}

// fail answers with code and a page saying msg; v, when known, keeps the
// page's header (tenant, sign out). A 503 says when to retry.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string) {
	w.Header().Set("Cache-Control", "no-store")
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1") // no worker to serve it: retrying soon is safe
	}
	if r.Header.Get("HX-Request") != "" {
		// htmx swaps nothing on an error: the script shows the message.
		plain(w, code, msg)
		return
	}
	c.render(w, r, code, "error", page{Title: http.StatusText(code), Visit: v, Message: msg})
}

// roleName is the member's role as a person says it: "viewer".
func roleName(v *visit) string {
	if v == nil || v.member == nil {
		return "unknown"
	}
	return strings.ToLower(strings.TrimPrefix(v.member.GetRole().String(), "MEMBER_ROLE_"))
}

// roleOf is the role of a membership, for templates.
func roleOf(m *taskwirev1.Membership) string {
	return strings.ToLower(strings.TrimPrefix(m.GetRole().String(), "MEMBER_ROLE_"))
}

// plain answers with code and msg as text, for the script to show.
func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(msg))
}
