package frontdoor

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/calllog"
	"github.com/taskwire/taskwire/internal/progress"
)

// methods are the requests served. Anything else is -32601.
var methods = map[string]func(*exchange) (any, error){
	"server/discover":      (*exchange).discover,
	"tools/list":           (*exchange).listTools,
	"tools/call":           (*exchange).callTool,
	"subscriptions/listen": (*exchange).listen,
	"tasks/get":            (*exchange).getTask, // tasks.go
	"tasks/update":         (*exchange).updateTask,
	"tasks/cancel":         (*exchange).cancelTask,

	// Optional features (content.go): -32601 unless configured.
	"resources/list":           (*exchange).listResources,
	"resources/templates/list": (*exchange).listResourceTemplates,
	"resources/read":           (*exchange).readResource,
	"prompts/list":             (*exchange).listPrompts,
	"prompts/get":              (*exchange).getPrompt,
	"completion/complete":      (*exchange).complete,
}

// Cache hints (ttlMs and cacheScope). Discovery is the same for everyone; the tool
// list depends on the caller's scopes, so only its own token's cache may
// keep it.
const (
	discoverTTLMs  = 10 * 60 * 1000
	listToolsTTLMs = 60 * 1000
)

// resultHead holds the members every result carries.
type resultHead struct {
	ResultType string     `json:"resultType"`
	Meta       resultMeta `json:"_meta"`
}

type resultMeta struct {
	ServerInfo mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
	Problems   []string           `json:"taskwire/problems,omitempty"` // mcp.MetaProblems
}

func (x *exchange) head() resultHead {
	return resultHead{ResultType: mcp.ResultComplete, Meta: resultMeta{ServerInfo: x.h.cfg.ServerInfo}}
}

type discoverResult struct {
	resultHead
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      serverCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	TTLMs             int                `json:"ttlMs"`
	CacheScope        string             `json:"cacheScope"`
}

// serverCapabilities advertises what is served. listChanged is set for
// modern requests when change events reach this front door: the
// notifications travel on subscriptions/listen streams, which legacy
// sessions do not have.
type serverCapabilities struct {
	Tools listCapability `json:"tools"`
	contentCapabilities
	Extensions map[string]any `json:"extensions,omitempty"`
}

// listCapability is a feature whose list may change while a client uses it.
type listCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// extensions are the server's extensions, nil when none is served: MCP
// Apps for every revision, MCP Tasks for modern requests only (legacy
// sessions predate that extension).
func (h *Handler) extensions(legacy bool) map[string]any {
	ext := map[string]any{}
	if h.cfg.Apps != nil {
		ext[ExtensionApps] = appsCapability{MIMETypes: []string{AppMIME}}
	}
	if !legacy && h.taskBackend() != nil {
		ext[mcp.ExtensionTasks] = struct{}{}
	}
	if len(ext) == 0 {
		return nil
	}
	return ext
}

func (x *exchange) discover() (any, error) {
	var caps serverCapabilities
	watched := x.h.cfg.Events != nil
	caps.Tools.ListChanged = watched
	caps.contentCapabilities = x.h.contentCapabilities(watched)
	caps.Extensions = x.h.extensions(false)
	return discoverResult{
		resultHead:        x.head(),
		Capabilities:      caps,
		SupportedVersions: supportedVersions,
		Instructions:      x.h.cfg.Instructions,
		TTLMs:             discoverTTLMs,
		CacheScope:        mcp.CachePublic,
	}, nil
}

type listToolsResult struct {
	resultHead
	Tools      []mcp.Tool `json:"tools"`
	NextCursor string     `json:"nextCursor,omitempty"`
	TTLMs      int        `json:"ttlMs"`
	CacheScope string     `json:"cacheScope"`
}

// listTools returns one page of the caller's tools.
func (x *exchange) listTools() (any, error) {
	page, next, err := x.toolPage()
	if err != nil {
		return nil, err
	}
	return listToolsResult{resultHead: x.head(), Tools: page, NextCursor: next, TTLMs: listToolsTTLMs, CacheScope: mcp.CachePrivate}, nil
}

// toolPage returns the page of the caller's tools that params.cursor asks
// for, and the cursor of the next page, "" on the last. Both eras page
// alike.
func (x *exchange) toolPage() ([]mcp.Tool, string, error) {
	cursor, err := optionalString(x.req.params, "cursor")
	if err != nil {
		return nil, "", err
	}
	tools, err := x.h.cfg.Tools.Tools(x.r.Context(), x.caller)
	if err != nil {
		return nil, "", err
	}
	start, ok := pageStart(tools, cursor)
	if !ok {
		return nil, "", jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: the cursor is not valid; list again without one")
	}
	end := min(start+x.h.pageSize, len(tools))
	next := ""
	if end < len(tools) {
		next = makeCursor(tools[end-1].Name)
	}
	return x.withViews(append([]mcp.Tool{}, tools[start:end]...)), next, nil
}

// cursorPrefix versions the cursor format, so that a later format can tell
// old cursors apart.
const cursorPrefix = "v1:"

// makeCursor returns the cursor of the page after the tool named last. A
// name rather than an offset keeps the cursor meaningful when the list
// changes between pages.
func makeCursor(last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + last))
}

// pageStart returns where the page of cursor starts in tools; "" is the
// first page. ok is false for a cursor this server did not make or whose
// tool has gone.
func pageStart(tools []mcp.Tool, cursor string) (start int, ok bool) {
	if cursor == "" {
		return 0, true
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	last, found := strings.CutPrefix(string(b), cursorPrefix)
	if err != nil || !found {
		return 0, false
	}
	for i, t := range tools {
		if t.Name == last {
			return i + 1, true
		}
	}
	return 0, false
}

// callToolResult is a CallToolResult with the members of every result.
type callToolResult struct {
	resultHead
	*mcp.CallToolResult
}

// AppendJSON writes the result with its structuredContent as the tool
// backend encoded it (jsonrpc.Appender), and its problems in _meta.
func (r callToolResult) AppendJSON(b []byte) ([]byte, error) {
	head := r.resultHead
	head.Meta.Problems = r.Problems
	return r.CallToolResult.AppendWith(b, head)
}

// inputRequiredResult asks the client for input before the call can
// complete; it carries no content and no cache hints.
type inputRequiredResult struct {
	resultHead
	*mcp.InputRequiredResult
}

// callTool hands a tools/call to the backend, with the capabilities this
// request declared, once its Mcp-Param headers agree with its arguments.
func (x *exchange) callTool() (any, error) {
	call, err := x.toolCall(x.req.meta[mcp.MetaClientCapabilities])
	if err != nil {
		return nil, err
	}
	if e := checkParamHeaders(x.r.Header, call.Arguments, x.h.cfg.Tools.ParamHeaders(call.Name)); e != nil {
		return nil, e
	}
	res, err := x.runCall(x.r.Context(), call)
	if err != nil {
		return nil, err
	}
	if res.InputRequired != nil {
		return x.inputRequired(res.InputRequired), nil
	}
	if res.Task != nil {
		return x.createTask(res.Task), nil
	}
	return callToolResult{resultHead: x.head(), CallToolResult: res}, nil
}

// inputRequired is the answer of a request that needs the client's input
// before it can complete (a tool call or a prompt).
func (x *exchange) inputRequired(ir *mcp.InputRequiredResult) inputRequiredResult {
	head := x.head()
	head.ResultType = mcp.ResultInputRequired
	return inputRequiredResult{resultHead: head, InputRequiredResult: ir}
}

// inputRound reads what a retry of an input round carries: the client's
// answers (an object, if present) and the requestState it echoes.
func (x *exchange) inputRound() (responses json.RawMessage, state string, err error) {
	if r, present := x.req.params["inputResponses"]; present {
		if !isObject(r) {
			return nil, "", jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.inputResponses must be an object")
		}
		responses = r
	}
	state, err = optionalString(x.req.params, "requestState")
	return responses, state, err
}

// runCall runs call on the backend, with a progress reporter if the client
// asked for progress, and returns a copy of the backend's result whose
// content is never null.
func (x *exchange) runCall(ctx context.Context, call *mcp.ToolCall) (*mcp.CallToolResult, error) {
	var report progress.Reporter
	if token, ok := x.req.meta[mcp.MetaProgressToken]; ok {
		// Modern requests were checked with the rest of _meta; legacy
		// ones are checked here, the one place both eras pass.
		if !validProgressToken(token) {
			return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params._meta[%q] must be %s", mcp.MetaProgressToken, progressTokenWant)
		}
		x.out.token = token
		report = x.out.progress
	}
	ctx = identity.NewContext(ctx, x.caller)
	res, err := x.h.cfg.Tools.CallTool(ctx, x.caller, call, report)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("frontdoor: tool backend returned neither result nor error")
	}
	out := *res // the backend's value stays untouched
	if out.Content == nil {
		out.Content = []mcp.Content{} // content is required, [] is fine
	}
	x.toolError = out.IsError
	if out.Unavailable {
		x.giveBack()
	}
	return &out, nil
}

// toolCall reads the params of a tools/call.
func (x *exchange) toolCall(caps json.RawMessage) (*mcp.ToolCall, error) {
	name, ok := str(x.req.params, "name")
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.name must be a string naming a tool")
	}
	x.tool = name
	calllog.Set(x.r.Context(), slog.String(calllog.KeyTool, clip(name)))
	args, present := x.req.params["arguments"]
	if present && !isObject(args) {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.arguments must be an object")
	}
	call := &mcp.ToolCall{Name: name, Arguments: args, ClientCapabilities: caps, Tasks: x.declaresTasks(caps)}
	var err error
	if call.InputResponses, call.RequestState, err = x.inputRound(); err != nil {
		return nil, err
	}
	if level, _ := str(x.req.meta, mcp.MetaLogLevel); level != "" {
		call.LogLevel, call.Log = level, x.out.message
	}
	call.SessionLabel = sessionLabel(x.r.Header, x.req.meta)
	call.TraceParent, _ = str(x.req.meta, mcp.MetaTraceParent)
	call.TraceState, _ = str(x.req.meta, mcp.MetaTraceState)
	return call, nil
}

// optionalString returns params[key], which must be a string if present.
func optionalString(params map[string]json.RawMessage, key string) (string, error) {
	if _, present := params[key]; !present {
		return "", nil
	}
	s, ok := str(params, key)
	if !ok {
		return "", jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.%s must be a string", key)
	}
	return s, nil
}

// hdrSessionLabel is the client's own name for its session ("laptop
// claude"), recorded in the audit log beside its tool calls and in the
// task history ("via …").
const hdrSessionLabel = "Taskwire-Session-Label"

// maxSessionLabel bounds a session label.
const maxSessionLabel = 100

// sessionLabel returns the request's session label: the
// Taskwire-Session-Label header, or else the title (or name) of the
// clientInfo in the request's _meta, so that a client which sends no
// header is still named ("Claude Code"). It is "" when both are missing
// or unusable: a repeated header, longer than maxSessionLabel, or not
// printable ASCII. It is the client's word, only a note, never a reason
// to refuse a call.
func sessionLabel(h http.Header, meta map[string]json.RawMessage) string {
	if values := h.Values(hdrSessionLabel); len(values) > 0 {
		if len(values) != 1 {
			return ""
		}
		return cleanLabel(values[0])
	}
	impl, ok := object(meta[mcp.MetaClientInfo])
	if !ok {
		return ""
	}
	if title, _ := str(impl, "title"); cleanLabel(title) != "" {
		return cleanLabel(title)
	}
	name, _ := str(impl, "name")
	return cleanLabel(name)
}

// cleanLabel is v trimmed, or "" when it is longer than maxSessionLabel
// or not printable ASCII.
func cleanLabel(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > maxSessionLabel {
		return ""
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return ""
		}
	}
	return v
}
