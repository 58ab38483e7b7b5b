package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// errorData says where a bridge-made error came from, so a person reading
// a client's log can tell the bridge from the server.
type errorData struct {
	URL    string `json:"url,omitempty"`
	Status int    `json:"status,omitempty"` // the HTTP status the server answered
	Body   string `json:"body,omitempty"`   // the start of a body that was not JSON-RPC
}

// errorLine encodes an error response for id; a nil id becomes null, as
// JSON-RPC asks when the request's id could not be read. The bridge's own
// errors use the front door's codes; transport failures use Internal: to
// the client the bridge is the server, and it failed.
func errorLine(id json.RawMessage, e jsonrpc.Error) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{jsonrpc.Version, id, e})
	if err != nil { // only a broken id gets here: answer without it
		b, _ = json.Marshal(map[string]any{"jsonrpc": jsonrpc.Version, "id": nil, "error": jsonrpc.Error{Code: e.Code, Message: e.Message}})
	}
	return b
}

// unreachable is the error of a request that never got an HTTP answer.
func unreachable(url string, err error) jsonrpc.Error {
	return jsonrpc.Error{
		Code:    jsonrpc.Internal,
		Message: fmt.Sprintf("taskwire-bridge cannot reach the Taskwire server at %s: %v; check TASKWIRE_URL and that the server is running", url, unwrapURLError(err)),
		Data:    errorData{URL: url},
	}
}

// broken is the error of a call whose stream ended without its response:
// the server went away, or the connection to it broke.
func broken(url string, err error) jsonrpc.Error {
	msg := fmt.Sprintf("the connection to the Taskwire server at %s ended before the call was answered", url)
	if err != nil {
		msg += " (" + unwrapURLError(err).Error() + ")"
	}
	return jsonrpc.Error{
		Code:    jsonrpc.Internal,
		Message: msg + "; the server may have stopped: check that it is running, then retry",
		Data:    errorData{URL: url},
	}
}

// refusedToken is the error of a 401: whatever the server's words, the
// person must fix the token. It names the status, so that nobody takes it
// for a server that cannot be reached.
func refusedToken(url, reason string) jsonrpc.Error {
	msg := "the Taskwire server at " + url + " refused the token (HTTP 401"
	if reason != "" {
		msg += ": " + reason
	}
	msg += ")"
	return jsonrpc.Error{
		Code:    jsonrpc.InvalidRequest,
		Message: msg + ": check TASKWIRE_TOKEN; it may be expired or revoked (mint a new one with `taskwire token create`)",
		Data:    errorData{URL: url, Status: http.StatusUnauthorized},
	}
}

// notJSONRPC is the error of an HTTP failure whose body is not JSON-RPC,
// e.g. a proxy's error page: the status is all the bridge can pass on.
func notJSONRPC(url string, status int, body []byte) jsonrpc.Error {
	return jsonrpc.Error{
		Code:    jsonrpc.Internal,
		Message: fmt.Sprintf("the Taskwire server at %s answered HTTP %d %s", url, status, http.StatusText(status)),
		Data:    errorData{URL: url, Status: status, Body: clip(string(body), 256)},
	}
}

// clip shortens s to at most n bytes of valid UTF-8.
func clip(s string, n int) string {
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return strings.TrimSpace(s)
}
