package oauthedge

import (
	"encoding/json"
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor"
)

// oauthError is the JSON body of an OAuth error (RFC 6749 §5.2, RFC 7591
// §3.2.2, RFC 7009 §2.2.1).
type oauthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// writeJSON writes v as the JSON body of a response that must never be
// stored: it may hold tokens or a client secret.
func writeJSON(w http.ResponseWriter, code int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes an OAuth error response.
func writeError(w http.ResponseWriter, code int, errCode, description string) {
	writeJSON(w, code, oauthError{Code: errCode, Description: description})
}

// refuse writes the worker's refusal: 400, but 401 for invalid_client
// (with a Basic challenge when the client used Basic authentication, RFC
// 6749 §5.2) and 503 for temporarily_unavailable.
func refuse(w http.ResponseWriter, e *taskwirev1.OAuthError, basic bool) {
	code := http.StatusBadRequest
	switch {
	case e.GetCode() == "invalid_client" && basic:
		code = http.StatusUnauthorized
		w.Header().Set("WWW-Authenticate", `Basic realm="taskwire", charset="UTF-8"`)
	case e.GetCode() == "temporarily_unavailable":
		code = http.StatusServiceUnavailable
	}
	writeError(w, code, e.GetCode(), e.GetDescription())
}

// failed answers a call to the workers that failed: unreachable or
// overloaded workers are temporarily_unavailable, anything else a
// server_error whose cause goes to the log only.
func (e *Edge) failed(w http.ResponseWriter, r *http.Request, op string, err error) {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Canceled:
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "The server cannot reach its workers. Try again in a few seconds.")
		return
	}
	e.log.ErrorContext(r.Context(), "oauth call failed", "op", op, "err", err)
	writeError(w, http.StatusInternalServerError, "server_error", "The server failed to answer. Try again later; if it keeps failing, tell the operator.")
}

// admit charges one request of r to its address's bucket of rl; a
// request over the limit is answered 429 and admit returns false.
func (e *Edge) admit(w http.ResponseWriter, r *http.Request, rl *frontdoor.RateLimiter, op string) bool {
	if rl == nil {
		return true
	}
	addr := e.clientAddr(r)
	if addr == "" {
		return true // a test's request or a Unix socket: no address to count
	}
	over := rl.Admit(addressCaller(addr), op)
	if over == nil {
		return true
	}
	w.Header().Set("Retry-After", strconv.FormatInt(over.RetryAfter(), 10))
	writeError(w, http.StatusTooManyRequests, "temporarily_unavailable",
		"Too many requests from your address ("+over.Limit.String()+"). Try again in "+strconv.FormatInt(over.RetryAfter(), 10)+" seconds.")
	return false
}

// clientAddr is the address r came from, "" when unknown.
func (e *Edge) clientAddr(r *http.Request) string {
	if a := e.cfg.Throttle.ClientAddr(r); a.IsValid() {
		return a.String()
	}
	return ""
}

// throttled answers 429 when r's address failed to authenticate too
// often (at the token endpoint, the MCP endpoint or the admin API).
func (e *Edge) throttled(w http.ResponseWriter, r *http.Request) bool {
	wait, refused := e.cfg.Throttle.Refuses(e.cfg.Throttle.ClientAddr(r))
	if !refused {
		return false
	}
	secs := strconv.FormatInt(frontdoor.RetryAfter(wait), 10)
	w.Header().Set("Retry-After", secs)
	writeError(w, http.StatusTooManyRequests, "temporarily_unavailable",
		"Too many failed attempts from your address ("+e.cfg.Throttle.Allowance()+" allowed). Try again in "+secs+" seconds.")
	return true
}
