// Package mcp holds the Model Context Protocol wire types and constants the
// front door speaks: the parts of the 2026-07-28 schema Taskwire serves.
package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// Protocol versions.
const (
	Version20260728 = "2026-07-28"
	// LatestVersion is the newest version served.
	LatestVersion = Version20260728

	// Versions of the legacy era, which starts with the initialize
	// handshake and keeps a session.
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
	// LatestLegacyVersion is the version offered to a legacy client that
	// asks for one not served.
	LatestLegacyVersion = Version20251125
)

// Reserved _meta keys.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaProgressToken      = "progressToken"
	// MetaSubscriptionID tags every message of a listen stream with the
	// listen request's id.
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
	// MetaTraceParent and MetaTraceState carry a request's W3C trace
	// context, named as the HTTP headers are.
	MetaTraceParent = "traceparent"
	MetaTraceState  = "tracestate"
	// MetaProblems lists, in the _meta of a tool result with isError,
	// what was wrong with the arguments, one sentence each, for the
	// client's code; the model reads the same sentences in the text.
	MetaProblems = "taskwire/problems"
)

// The headers of MCP's Streamable HTTP transport. The standard ones repeat
// parts of the body so that proxies and load balancers can route without
// parsing it, which only works if the server refuses a request whose
// headers and body disagree; HeaderSessionID carries a legacy session,
// issued by initialize and sent back with every later request.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderSessionID       = "Mcp-Session-Id"
)

// Result types.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
)

// Cache scopes.
const (
	CachePublic  = "public"
	CachePrivate = "private"
)

// Implementation names a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ToolAnnotations are hints about a tool's behaviour. Pointers keep false
// apart from absent, since the protocol's defaults are not all false.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool is one entry of tools/list.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// Meta is the tool's _meta, e.g. the view of MCP Apps that shows its
	// results (apps.go); nil for none.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Content block types.
const (
	ContentText     = "text"
	ContentImage    = "image"
	ContentAudio    = "audio"
	ContentResource = "resource"
)

// Content is a content block of a tool result or a prompt message: text,
// an image, audio or an embedded resource, as Type says. Only the fields
// of that type go on the wire (see MarshalJSON), so one struct serves all
// four without a block carrying members its type does not have.
type Content struct {
	Type string `json:"type"`
	// Text is the text of a text block.
	Text string `json:"text,omitempty"`
	// Data (base64) and MIMEType are the bytes of an image or audio block.
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// Resource is the resource of a resource block.
	Resource *EmbeddedResource `json:"resource,omitempty"`
}

// EmbeddedResource is the resource of a resource block: its text, or its
// bytes in Blob (base64).
type EmbeddedResource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
	// Meta is the contents' _meta, e.g. the CSP of an MCP Apps view.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// TextContent returns a text content block.
func TextContent(s string) Content { return Content{Type: ContentText, Text: s} }

// ImageContent returns an image block of base64 data.
func ImageContent(data, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MIMEType: mimeType}
}

// AudioContent returns an audio block of base64 data.
func AudioContent(data, mimeType string) Content {
	return Content{Type: ContentAudio, Data: data, MIMEType: mimeType}
}

// ResourceContent returns a block embedding r.
func ResourceContent(r EmbeddedResource) Content {
	return Content{Type: ContentResource, Resource: &r}
}

// The wire shapes of each block type. Every member the schema requires is
// there even when empty: a text block without "text" is not a text block.
// (A text block is written by appendJSON itself.)
type (
	mediaBlock struct {
		Type     string `json:"type"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	}
	resourceBlock struct {
		Type     string           `json:"type"`
		Resource EmbeddedResource `json:"resource"`
	}
)

// MarshalJSON writes the members of c's type and no others. A block of
// another type is an error rather than a guess: sending something the
// client cannot read is worse than failing the request.
func (c Content) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// appendJSON appends c as MarshalJSON writes it. A text block is written
// directly: a tool's text is often its result's JSON again, which
// encoding/json would escape and then check byte by byte.
func (c Content) appendJSON(b []byte) ([]byte, error) {
	var block any
	switch c.Type {
	case ContentText:
		b = append(b, `{"type":"text","text":`...)
		return append(jsonrpc.AppendString(b, c.Text), '}'), nil
	case ContentImage, ContentAudio:
		block = mediaBlock{c.Type, c.Data, c.MIMEType}
	case ContentResource:
		if c.Resource == nil {
			return nil, fmt.Errorf("mcp: resource content block without a resource")
		}
		block = resourceBlock{c.Type, *c.Resource}
	default:
		return nil, fmt.Errorf("mcp: content block of unknown type %q", c.Type)
	}
	raw, err := json.Marshal(block)
	return append(b, raw...), err
}

// MarshalJSON writes the text or the blob of r: MCP's resource contents
// are one or the other. Without a blob r is text, even empty text.
func (r EmbeddedResource) MarshalJSON() ([]byte, error) {
	if r.Blob != "" {
		return json.Marshal(struct {
			URI      string          `json:"uri"`
			MIMEType string          `json:"mimeType,omitempty"`
			Blob     string          `json:"blob"`
			Meta     json.RawMessage `json:"_meta,omitempty"`
		}{r.URI, r.MIMEType, r.Blob, r.Meta})
	}
	return json.Marshal(struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType,omitempty"`
		Text     string          `json:"text"`
		Meta     json.RawMessage `json:"_meta,omitempty"`
	}{r.URI, r.MIMEType, r.Text, r.Meta})
}

// CallToolResult is the outcome of a tool call. IsError marks a failure the
// model can act on (a bad value, an unknown ref), as opposed to a protocol
// error. A result with InputRequired set is not complete: the front door
// sends that instead, and the client retries with the answers.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	// Problems, of a result with isError about arguments that did not fit
	// the inputSchema, go under _meta (MetaProblems).
	Problems []string `json:"-"`
	// Unavailable marks a result with isError saying that no worker could
	// serve the call (UnavailableText): it costs the caller no rate
	// budget, like any request refused for that.
	Unavailable bool `json:"-"`

	InputRequired *InputRequiredResult `json:"-"`
	// Task, when set, is the MCP task the call runs as in the background
	// (ExtensionTasks): the client gets a CreateTaskResult instead.
	Task *Task `json:"-"`
}

// AppendJSON writes r with its structuredContent as the tool backend
// encoded it (jsonrpc.Appender), with its problems in _meta.
func (r *CallToolResult) AppendJSON(b []byte) ([]byte, error) {
	if len(r.Problems) == 0 {
		return r.AppendWith(b, struct{}{})
	}
	return r.AppendWith(b, struct {
		Meta map[string][]string `json:"_meta"`
	}{map[string][]string{MetaProblems: r.Problems}})
}

// AppendWith writes r as AppendJSON does, after the members of head, which
// encodes as a JSON object: the members every result has, _meta with
// r.Problems among them.
func (r *CallToolResult) AppendWith(b []byte, head any) ([]byte, error) {
	content, err := AppendContent(nil, r.Content)
	if err != nil {
		return nil, err
	}
	var isError json.RawMessage
	if r.IsError {
		isError = json.RawMessage("true")
	}
	return jsonrpc.AppendObjectWith(b, head,
		jsonrpc.Member{Name: "content", Value: content},
		jsonrpc.Member{Name: "structuredContent", Value: r.StructuredContent},
		jsonrpc.Member{Name: "isError", Value: isError})
}

// AppendContent appends blocks as a JSON array, each as MarshalJSON
// writes it. No blocks is [], never null.
func AppendContent(b []byte, blocks []Content) ([]byte, error) {
	b = append(b, '[')
	for i, c := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = c.appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// ToolCall is one tools/call request as a tool backend needs it.
type ToolCall struct {
	Name      string
	Arguments json.RawMessage // a JSON object, or nil
	// InputResponses and RequestState come with the retry of a call that
	// answered input_required (multi round-trip requests).
	InputResponses json.RawMessage // a JSON object, or nil
	RequestState   string
	// ClientCapabilities is what this request declared in _meta; a server
	// may use no capability the request did not declare.
	ClientCapabilities json.RawMessage
	// LogLevel is the least severe level of the messages the client asked
	// for (_meta io.modelcontextprotocol/logLevel); Log receives them, and
	// may be called from any goroutine. Empty and nil: no messages.
	LogLevel string
	Log      func(level, text string)
	// TraceParent and TraceState are the W3C trace context of _meta, to
	// carry into the calls the tool makes.
	TraceParent, TraceState string
	// SessionLabel is the client's own name for its session (HTTP header
	// Taskwire-Session-Label), printable ASCII, for the audit log.
	SessionLabel string
	// Tasks tells that the request declared ExtensionTasks (and is of a
	// revision that has it): the backend may run the call as an MCP task.
	Tasks bool
}

// InputRequest asks the client for input: an elicitation/create,
// sampling/createMessage or roots/list request it answers on its retry.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// InputRequiredResult is the members of an input_required result besides
// resultType and _meta.
type InputRequiredResult struct {
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

// UnavailableText tells a client that no worker could serve its request
// just now (all are gone, or their database cannot be reached) and that
// retrying is safe: the text of a tool call's isError result, and the
// message of any other request's UnavailableError.
const UnavailableText = "The board is temporarily unavailable. Try again in a moment."

// UnavailableError reports that no worker could serve a request just now.
// The front door answers it with jsonrpc.Unavailable, HTTP 503 and
// Retry-After; a tool call gets a tool result saying UnavailableText.
type UnavailableError struct{ Cause error }

func (e *UnavailableError) Error() string {
	if e.Cause == nil {
		return UnavailableText
	}
	return "unavailable: " + e.Cause.Error()
}

func (e *UnavailableError) Unwrap() error { return e.Cause }

// RevokedError reports a caller the worker no longer accepts: the token
// was revoked (or never issued here), or its member is gone. The front
// door answers 401, so the client gets a new token.
type RevokedError struct{ Reason string }

func (e *RevokedError) Error() string { return e.Reason }

// ScopeError reports that the caller's token lacks the scope a tool needs.
// The front door answers it with HTTP 403 and an insufficient_scope
// challenge.
type ScopeError struct {
	Tool  string
	Scope string
}

func (e *ScopeError) Error() string {
	return "this token lacks the " + e.Scope + " scope needed by " + e.Tool
}

// ToolsetError reports that the caller's token is limited to toolsets
// that do not hold the tool. Like a ScopeError, another token lifts it, so
// the front door answers it the same way: HTTP 403 with an
// insufficient_scope challenge.
type ToolsetError struct {
	Tool     string
	Toolset  string   // the tool's toolset
	Toolsets []string // the token's toolsets
	Message  string   // says what to do, e.g. access.ToolsetSentence
}

// Error is Message with its first letter lowered, to follow "forbidden: "
// as a ScopeError's text does.
func (e *ToolsetError) Error() string {
	if e.Message == "" {
		return "this token's toolsets do not hold " + e.Tool
	}
	return strings.ToLower(e.Message[:1]) + e.Message[1:]
}
