package frontdoor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// request is the MCP view of one JSON-RPC request. Params and _meta are
// read once into maps, which match keys exactly: encoding/json's struct
// decoding would also take "Name" for "name".
type request struct {
	method string
	header http.Header
	params map[string]json.RawMessage // nil unless params is an object
	meta   map[string]json.RawMessage // nil unless params._meta is an object
}

func parseRequest(m *jsonrpc.Message, h http.Header) *request {
	q := &request{method: m.Method, header: h}
	q.params, _ = object(m.Params)
	q.meta, _ = object(q.params["_meta"])
	return q
}

// requestChecks run in order on every request, after the transport checks
// (headers first, then _meta); the first failure answers the request.
var requestChecks = []func(*request) *jsonrpc.Error{
	checkHeaders,
	checkMeta,
	checkVersion,
	checkMethod,
}

// metaRules say what each reserved _meta key of a request must hold. A
// malformed value is -32602 even where the spec only says SHOULD
// (logLevel), so that a client learns of its mistake.
var metaRules = []struct {
	key      string
	required bool
	valid    func(json.RawMessage) bool
	want     string
}{
	{mcp.MetaProtocolVersion, true, isString, "a string"},
	{mcp.MetaClientCapabilities, true, validCapabilities, "a ClientCapabilities object"},
	{mcp.MetaClientInfo, false, validImplementation, "an object with a string name and version"},
	{mcp.MetaLogLevel, false, validLogLevel, "a logging level (debug, info, notice, warning, error, critical, alert or emergency)"},
	{mcp.MetaProgressToken, false, validProgressToken, progressTokenWant},
}

// MaxProgressToken bounds a progressToken, in bytes of its JSON text as
// sent. Every notifications/progress repeats the token, so without a bound
// a client could make the server's answer hundreds of times its request
// (a 2 MiB token on an import that reports a hundred times). MCP sets no
// bound; tokens in practice are short ids.
const MaxProgressToken = 256

var progressTokenWant = fmt.Sprintf("a string or an integer of at most %d bytes (as JSON text)", MaxProgressToken)

// validProgressToken reports whether raw may be a progressToken: an id
// (a string or an integer) of at most MaxProgressToken bytes.
func validProgressToken(raw json.RawMessage) bool {
	return len(raw) <= MaxProgressToken && jsonrpc.ValidID(raw)
}

// checkMeta checks params._meta, which every request of the stateless
// protocol carries.
func checkMeta(q *request) *jsonrpc.Error {
	switch {
	case q.params == nil:
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params must be an object carrying _meta")
	case q.meta == nil:
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params._meta must be an object")
	}
	for _, r := range metaRules {
		raw, ok := q.meta[r.key]
		switch {
		case !ok && r.required:
			return jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params._meta[%q] is required", r.key)
		case ok && !r.valid(raw):
			return jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params._meta[%q] must be %s", r.key, r.want)
		}
	}
	return nil
}

// checkVersion refuses a version not served in the modern era, whatever it
// looks like: a membership test, not a comparison (go-sdk #1173). A legacy
// version in _meta is refused too, since those versions carry no _meta;
// the error lists every version served, so the client can either retry
// with 2026-07-28 or fall back to initialize.
func checkVersion(q *request) *jsonrpc.Error {
	v, _ := str(q.meta, mcp.MetaProtocolVersion)
	switch {
	case slices.Contains(modernVersions, v):
		return nil
	case slices.Contains(legacyVersions, v):
		return unsupportedVersion(v, fmt.Sprintf("protocol version %s has no per-request _meta; start it with initialize, or send %s", v, mcp.LatestVersion))
	}
	return unsupportedVersion(v, fmt.Sprintf("unsupported protocol version %.40q", v))
}

// versionData is the data of an UnsupportedProtocolVersion error.
type versionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

func unsupportedVersion(requested, msg string) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.UnsupportedProtocolVersion,
		Message: msg,
		Data:    versionData{Supported: supportedVersions, Requested: requested},
	}
}

// removedMethods are requests of earlier revisions that 2026-07-28 dropped;
// they get -32601 like any unknown method, with a message that says why.
var removedMethods = map[string]bool{
	"initialize":            true,
	"ping":                  true,
	"logging/setLevel":      true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
}

func checkMethod(q *request) *jsonrpc.Error {
	if _, ok := methods[q.method]; ok {
		return nil
	}
	if removedMethods[q.method] {
		return jsonrpc.Errorf(jsonrpc.MethodNotFound, "method not found: %s was removed in MCP %s", q.method, mcp.LatestVersion)
	}
	return jsonrpc.Errorf(jsonrpc.MethodNotFound, "method not found: %.64q", q.method)
}

// capabilityShape lists the ClientCapabilities members that must be
// objects, and which of their members must be objects too ("*": all).
var capabilityShape = map[string][]string{
	"roots":        nil,
	"sampling":     {"context", "tools"},
	"elicitation":  {"form", "url"},
	"experimental": {"*"},
	"extensions":   {"*"},
}

func validCapabilities(raw json.RawMessage) bool {
	caps, ok := object(raw)
	if !ok {
		return false
	}
	for key, members := range capabilityShape {
		v, present := caps[key]
		if !present {
			continue
		}
		inner, ok := object(v)
		if !ok {
			return false
		}
		for name, mv := range inner {
			if (slices.Contains(members, "*") || slices.Contains(members, name)) && !isObject(mv) {
				return false
			}
		}
	}
	return true
}

func validImplementation(raw json.RawMessage) bool {
	impl, ok := object(raw)
	if !ok {
		return false
	}
	_, hasName := str(impl, "name")
	_, hasVersion := str(impl, "version")
	return hasName && hasVersion
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func validLogLevel(raw json.RawMessage) bool {
	s, ok := jsonrpc.String(raw)
	return ok && slices.Contains(logLevels, s)
}

// object returns the members of raw if it is a JSON object. raw is part
// of a message jsonrpc.Decode accepted.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	return jsonrpc.Members(raw)
}

// str returns obj[key] if it is a JSON string.
func str(obj map[string]json.RawMessage, key string) (string, bool) {
	return jsonrpc.String(obj[key])
}

func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }
func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }
