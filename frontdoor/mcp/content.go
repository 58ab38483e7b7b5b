package mcp

import "encoding/json"

// Resource is one entry of resources/list.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Meta is the resource's _meta, e.g. the CSP of an MCP Apps view.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ResourceTemplate is one entry of resources/templates/list: an RFC 6570
// URI template whose variables completion/complete can fill.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// ResourceContents is one part of a resources/read result: the same shape
// as a resource embedded in content, "text" or "blob" (base64) and never
// both.
type ResourceContents = EmbeddedResource

// ResourceNotFoundError reports a URI that names no resource of the caller,
// malformed URIs included. The front door answers it with -32602 (-32002
// in legacy sessions) and the URI as data, never with empty contents.
type ResourceNotFoundError struct {
	URI string
}

func (e *ResourceNotFoundError) Error() string { return "Resource not found: " + e.URI }

// PromptArgument is an argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptMessage is one message of a prompt; role is "user" or
// "assistant".
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptRequest is one prompts/get request as a prompt backend needs it.
type PromptRequest struct {
	Name      string
	Arguments map[string]string // nil when the client sent none
	// ClientCapabilities is what this request declared in _meta; a prompt
	// may ask for no input the request did not declare it can give.
	ClientCapabilities json.RawMessage
	// InputResponses and RequestState come with the retry of a request
	// that answered input_required, as for a tool call.
	InputResponses json.RawMessage // a JSON object, or nil
	RequestState   string
}

// PromptResult is the members of a prompts/get result besides resultType
// and _meta. A result with InputRequired set is not complete: the front
// door sends that instead, and the client retries with the answers.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`

	InputRequired *InputRequiredResult `json:"-"`
}

// Reference types of completion/complete.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// CompleteRequest is a completion/complete request as a completion backend
// needs it.
type CompleteRequest struct {
	// RefType is RefPrompt or RefResource; RefName is the prompt's name or
	// the resource template's URI.
	RefType, RefName string
	// Argument and Value are the argument being completed and what the
	// user has typed so far.
	Argument, Value string
	// Context holds the arguments already resolved, if the client sent
	// them.
	Context map[string]string
}

// MaxCompletionValues caps the values of one completion.
const MaxCompletionValues = 100

// Completion is the completion of a completion/complete result.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total"`
	HasMore bool     `json:"hasMore"`
}
