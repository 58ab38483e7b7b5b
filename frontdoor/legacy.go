package frontdoor

import (
	"encoding/json"
	"net/http"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/events"
)

// serveLegacy answers a message of a pre-2026 client (Streamable HTTP of
// 2025-06-18 and 2025-11-25): initialize opens a session, everything else
// must carry one. Its checks follow those revisions' transport rules:
// session missing 400, session unknown or expired 404 (the client then
// initializes again), a version header other than the session's 400.
func (x *exchange) serveLegacy() {
	x.legacy = true
	if x.msg.Kind == jsonrpc.Request && x.msg.Method == "initialize" {
		x.initialize()
		return
	}
	if f := x.openSession(); f != nil {
		x.fail(f)
		return
	}
	if x.msg.Kind == jsonrpc.Request {
		x.legacyRequest()
		return
	}
	// notifications/initialized has nothing to change: the session was
	// complete when sealed. A response answers an elicitation/create sent
	// on some call's stream, and goes to the replica holding it, as
	// notifications/cancelled goes to the replica
	// running the call.
	switch x.msg.Kind {
	case jsonrpc.Notification:
		x.forwardCancel()
	case jsonrpc.Response:
		x.forwardResponse()
	}
	x.out.accept()
}

// deleteSession ends a legacy client's session: its sealed id is refused
// from now on, by every replica that hears of it (session_news.go).
func (x *exchange) deleteSession() {
	x.legacy = true
	if f := x.openSession(); f != nil {
		x.fail(f)
		return
	}
	x.tell(events.SessionNews{Ended: true})
	x.out.empty(http.StatusNoContent)
}

// openSession opens the request's session, which must belong to the
// caller of this request's token, and checks the version header against
// it.
func (x *exchange) openSession() *failure {
	values := x.r.Header.Values(mcp.HeaderSessionID)
	switch len(values) {
	case 0:
		return x.sessionRefusal(http.StatusBadRequest, "invalid request: the Mcp-Session-Id header is required; send initialize to start a session")
	case 1:
	default:
		return x.sessionRefusal(http.StatusBadRequest, "invalid request: send one Mcp-Session-Id header")
	}
	ses, err := x.h.sessions.open(values[0])
	if err == nil && x.h.sessionBook.lookup(sessionKey(values[0])).ended {
		return x.sessionRefusal(http.StatusNotFound, "session not found: it was ended; send initialize to start a new one")
	}
	if err != nil || !ses.belongsTo(x.caller) {
		x.cause = err
		return x.sessionRefusal(http.StatusNotFound, "session not found: it expired or was not issued to this token's member; send initialize to start a new one")
	}
	x.ses = ses
	// No header means the session's version: the session recorded it,
	// which the legacy default (2025-03-26) predates.
	versions := x.r.Header.Values(mcp.HeaderProtocolVersion)
	if len(versions) > 1 || len(versions) == 1 && versions[0] != ses.Version {
		return x.sessionRefusal(http.StatusBadRequest, "invalid request: the MCP-Protocol-Version header must name this session's version, "+ses.Version)
	}
	return nil
}

// sessionRefusal is a transport refusal about the session, with the
// request's id when there is one.
func (x *exchange) sessionRefusal(status int, msg string) *failure {
	f := refusal(status, msg, nil)
	if x.msg != nil {
		f.id = x.msg.ID
	}
	return f
}

// legacyMethods are the requests served to a legacy session.
var legacyMethods = map[string]func(*exchange) (any, error){
	"ping":             (*exchange).ping,
	"logging/setLevel": (*exchange).setLevel,
	"tools/list":       (*exchange).legacyListTools,
	"tools/call":       (*exchange).legacyCallTool,

	"resources/list":           (*exchange).legacyListResources,
	"resources/templates/list": (*exchange).legacyListResourceTemplates,
	"resources/read":           (*exchange).legacyReadResource,
	"prompts/list":             (*exchange).legacyListPrompts,
	"prompts/get":              (*exchange).legacyGetPrompt,
	"completion/complete":      (*exchange).legacyComplete,
}

// legacyRequest runs a request of a legacy session.
func (x *exchange) legacyRequest() {
	x.req = parseRequest(x.msg, x.r.Header)
	x.begin()
	run, ok := legacyMethods[x.msg.Method]
	if !ok {
		x.fail(&failure{id: x.msg.ID, err: jsonrpc.Errorf(jsonrpc.MethodNotFound, "method not found: %.64q", x.msg.Method)})
		return
	}
	result, err := run(x)
	if err != nil {
		x.fail(x.failureFor(err))
		return
	}
	x.reply(result)
}

// initializeResult is the answer to initialize in both legacy revisions.
type initializeResult struct {
	ProtocolVersion string                   `json:"protocolVersion"`
	Capabilities    legacyServerCapabilities `json:"capabilities"`
	ServerInfo      mcp.Implementation       `json:"serverInfo"`
	Instructions    string                   `json:"instructions,omitempty"`
}

// legacyServerCapabilities adds logging, which the legacy revisions
// declare as a capability: tools' log messages reach a session at the
// level it set with logging/setLevel.
type legacyServerCapabilities struct {
	serverCapabilities
	Logging struct{} `json:"logging"`
}

// initialize opens a legacy session at the client's version if served,
// else at the newest legacy one. An MCP-Protocol-Version header on it is
// ignored: the handshake is what negotiates the version.
func (x *exchange) initialize() {
	params, _ := object(x.msg.Params)
	requested, ok := str(params, "protocolVersion")
	if !ok {
		x.fail(&failure{id: x.msg.ID, err: jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.protocolVersion must be a string")})
		return
	}
	version := negotiate(requested)
	id, err := x.h.sessions.issue(x.caller, version, params["capabilities"])
	if err != nil {
		x.fail(x.internal(err))
		return
	}
	x.replyWith(http.Header{mcp.HeaderSessionID: {id}}, initializeResult{
		ProtocolVersion: version,
		Capabilities:    legacyServerCapabilities{serverCapabilities: serverCapabilities{contentCapabilities: x.h.contentCapabilities(false), Extensions: x.h.extensions(true)}},
		ServerInfo:      x.h.cfg.ServerInfo,
		Instructions:    x.h.cfg.Instructions,
	})
}

// ping answers {}; in both legacy revisions either side may ping.
func (x *exchange) ping() (any, error) { return struct{}{}, nil }

// setLevel records the session's logging level, here and at every
// replica (session_news.go): the session's tool calls then get the
// tools' log messages at or above it. Until a client sets a level it gets
// none.
func (x *exchange) setLevel() (any, error) {
	raw, ok := x.req.params["level"]
	if !ok || !validLogLevel(raw) {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.level must be a logging level (debug, info, notice, warning, error, critical, alert or emergency)")
	}
	var level string
	json.Unmarshal(raw, &level) // validLogLevel checked it is a string
	x.tell(events.SessionNews{LogLevel: level})
	return struct{}{}, nil
}
