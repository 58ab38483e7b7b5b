// Package mcp holds the Model Context Protocol wire types and constants the
// front door speaks: the parts of the 2026-07-28 schema Taskwire serves.
package mcp

import "encoding/json"

// Protocol versions.
const (
	Version20260728 = "2026-07-28"
	// LatestVersion is the newest version served.
	LatestVersion = Version20260728
)

// Reserved _meta keys.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaProgressToken      = "progressToken"
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
}

// Content is a content block. Taskwire sends text blocks only.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// TextContent returns a text content block.
func TextContent(s string) Content { return Content{Type: "text", Text: s} }

// CallToolResult is the outcome of a tool call. IsError marks a failure the
// model can act on (a bad value, an unknown ref), as opposed to a protocol
// error.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

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
