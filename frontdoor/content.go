package frontdoor

import (
	"context"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// ResourceBackend lists and reads the resources of one caller. Its errors
// follow ToolBackend's, plus *mcp.ResourceNotFoundError for a URI that
// names nothing the caller can read.
type ResourceBackend interface {
	// Resources returns the resources c may read, in a stable order.
	Resources(ctx context.Context, c identity.Caller) ([]mcp.Resource, error)
	// ResourceTemplates returns the URI templates of c's resources.
	ResourceTemplates(ctx context.Context, c identity.Caller) ([]mcp.ResourceTemplate, error)
	// ReadResource returns the contents of uri for c.
	ReadResource(ctx context.Context, c identity.Caller, uri string) ([]mcp.ResourceContents, error)
}

// PromptBackend lists and renders the prompts of one caller. An unknown
// prompt or a bad argument is a *jsonrpc.Error with InvalidParams; other
// errors follow ToolBackend's.
type PromptBackend interface {
	// Prompts returns the prompts c may get, in a stable order.
	Prompts(ctx context.Context, c identity.Caller) ([]mcp.Prompt, error)
	// GetPrompt renders the prompt req names for c, or asks for the
	// client's input first (a result with InputRequired set), as a tool
	// call may.
	GetPrompt(ctx context.Context, c identity.Caller, req *mcp.PromptRequest) (*mcp.PromptResult, error)
}

// CompletionBackend suggests values for the arguments of prompts and
// resource templates.
type CompletionBackend interface {
	// Complete returns at most mcp.MaxCompletionValues values for req.
	Complete(ctx context.Context, c identity.Caller, req *mcp.CompleteRequest) (*mcp.Completion, error)
}

// contentCapabilities are the capabilities of the optional features: each
// is advertised exactly when its backend is configured, since a feature
// advertised must be served and one served must be advertised. watched
// (listChanged) is for modern requests when change events reach this
// front door, as for tools.
type contentCapabilities struct {
	Resources   *listCapability `json:"resources,omitempty"`
	Prompts     *listCapability `json:"prompts,omitempty"`
	Completions *struct{}       `json:"completions,omitempty"`
}

func (h *Handler) contentCapabilities(watched bool) contentCapabilities {
	var c contentCapabilities
	if h.cfg.Resources != nil {
		c.Resources = &listCapability{ListChanged: watched}
	}
	if h.cfg.Prompts != nil {
		c.Prompts = &listCapability{ListChanged: watched}
	}
	if h.cfg.Completions != nil {
		c.Completions = &struct{}{}
	}
	return c
}

// Cache hints of the optional features. Everything is filtered by tenant,
// so every result is private to the caller's token.
const (
	listResourcesTTLMs = 60 * 1000
	templatesTTLMs     = 10 * 60 * 1000
	readResourceTTLMs  = 30 * 1000
	listPromptsTTLMs   = 10 * 60 * 1000
)

// cacheHint is the ttlMs and cacheScope of a cacheable 2026-07-28 result.
type cacheHint struct {
	TTLMs      int    `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

func private(ttlMs int) cacheHint { return cacheHint{TTLMs: ttlMs, CacheScope: mcp.CachePrivate} }

// notServed is the error of a method whose feature is not configured: the
// same -32601 as an unknown method, as the spec asks of a capability not
// advertised.
func (x *exchange) notServed() error {
	return jsonrpc.Errorf(jsonrpc.MethodNotFound, "method not found: %s is not served here", x.msg.Method)
}

// resourceNotFound is the error of a URI that names no resource: -32602
// since 2026-07-28, -32002 before; the URI goes in data either way.
func (x *exchange) resourceNotFound(e *mcp.ResourceNotFoundError) *jsonrpc.Error {
	code := jsonrpc.InvalidParams
	if x.legacy {
		code = jsonrpc.LegacyResourceNotFound
	}
	return &jsonrpc.Error{Code: code, Message: e.Error(), Data: map[string]string{"uri": e.URI}}
}
