package frontdoor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/progress"
)

// The tokens fakeVerifier knows. The real verifier (JWT, revocation) is
// tested with the token service.
const (
	tokenAll  = "token-all"  // acme member 1, every scope
	tokenRead = "token-read" // acme member 2, read only
)

type fakeVerifier struct{}

func (fakeVerifier) Verify(_ context.Context, raw string) (identity.Caller, error) {
	switch raw {
	case tokenAll:
		return identity.Caller{Tenant: "acme", Member: 1, Scopes: authz.AllScopes, TokenID: "jti-all"}, nil
	case tokenRead:
		return identity.Caller{Tenant: "acme", Member: 2, Scopes: []string{authz.ScopeRead}, TokenID: "jti-read"}, nil
	}
	// As the real verifier refuses what is no JWT.
	return identity.Caller{}, &authn.TokenError{Reason: authn.ReasonMalformed, Message: "the token is malformed (not a JWT): send the whole token, as it was shown"}
}

// fakeTool is one tool of fakeBackend: what it needs and what it does.
type fakeTool struct {
	tool  mcp.Tool
	scope string
	run   func(ctx context.Context, args json.RawMessage, report progress.Reporter) (*mcp.CallToolResult, error)
}

// fakeBackend is a ToolBackend over a fixed list of tools, filtered by
// scope the way the real catalogue is.
type fakeBackend struct {
	tools    []fakeTool
	toolsErr error // when set, what Tools returns
}

func (b *fakeBackend) Tools(_ context.Context, c identity.Caller) ([]mcp.Tool, error) {
	if b.toolsErr != nil {
		return nil, b.toolsErr
	}
	var out []mcp.Tool
	for _, t := range b.tools {
		if authz.Allows(c.Scopes, t.scope) {
			out = append(out, t.tool)
		}
	}
	return out, nil
}

func (b *fakeBackend) Check(context.Context, identity.Caller) error { return nil }

func (b *fakeBackend) CallTool(ctx context.Context, c identity.Caller, call *mcp.ToolCall, report progress.Reporter) (*mcp.CallToolResult, error) {
	name, args := call.Name, call.Arguments
	for _, t := range b.tools {
		if t.tool.Name != name {
			continue
		}
		if !authz.Allows(c.Scopes, t.scope) {
			return nil, &mcp.ScopeError{Tool: name, Scope: t.scope}
		}
		return t.run(ctx, args, report)
	}
	return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "unknown tool %q", name)
}

// ParamHeaders reads the annotations of the tool's inputSchema, as the
// catalogue does.
func (b *fakeBackend) ParamHeaders(name string) []mcp.ParamHeader {
	for _, t := range b.tools {
		if t.tool.Name == name {
			headers, err := mcp.ParamHeaders(t.tool.InputSchema)
			if err != nil {
				panic(err)
			}
			return headers
		}
	}
	return nil
}

func newTool(name, scope string, run func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error)) fakeTool {
	return fakeTool{
		tool: mcp.Tool{
			Name:        name,
			Description: "A test tool.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		},
		scope: scope,
		run:   run,
	}
}

func textResult(s string) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(s)}}, nil
}

// goldenBackend holds the tools the golden conversations call.
func goldenBackend() *fakeBackend {
	return &fakeBackend{tools: []fakeTool{
		newTool("tasks_list", authz.ScopeRead, func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content:           []mcp.Content{mcp.TextContent(`{"tasks":[]}`)},
				StructuredContent: json.RawMessage(`{"tasks":[]}`),
			}, nil
		}),
		newTool("tasks_create", authz.ScopeWrite, func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
			return textResult("created T-1")
		}),
		newTool("tasks_get", authz.ScopeRead, func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("T-9 does not exist in this tenant; list tasks to find its ref")}, IsError: true}, nil
		}),
		newTool("tasks_export", authz.ScopeRead, func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
			return nil, errors.New("export bucket s3://secret-bucket unreachable")
		}),
		newTool("tasks_import", authz.ScopeWrite, runImport),
		newTool("tâches_liste", authz.ScopeRead, func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
			return textResult("aucune tâche")
		}),
	}}
}

// runImport reports progress, including reports that do not rise and so
// must be dropped, then succeeds.
func runImport(_ context.Context, _ json.RawMessage, report progress.Reporter) (*mcp.CallToolResult, error) {
	if report != nil {
		report(1, 4, "reading")
		report(1, 4, "still reading") // not rising: dropped
		report(0.5, 4, "")            // falling: dropped
		report(2.5, 4, "")
		report(4, 0, "done")
	}
	return textResult("imported 4 tasks")
}

// testEndpoint is the endpoint of every test handler.
const testEndpoint = "http://127.0.0.1:8080/api/mcp"

// testSessionKey seals the legacy sessions of every test handler.
var testSessionKey = bytes.Repeat([]byte{7}, sealed.KeySize)

// testNow is the clock of every test handler, so that session ids open to
// the same contents in every run.
func testNow() time.Time { return time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC) }

// newTestHandler returns a Handler over the golden backend, or over b when
// given, logging to logger when given.
func newTestHandler(t testing.TB, b ToolBackend, logger *slog.Logger) *Handler {
	t.Helper()
	if b == nil {
		b = goldenBackend()
	}
	if logger == nil {
		logger = discardLog
	}
	h, err := New(Config{
		Endpoint:       testEndpoint,
		AllowedOrigins: []string{"https://inspector.example"},
		Verifier:       fakeVerifier{},
		Tools:          b,
		Resources:      fakeContent{},
		Prompts:        fakeContent{},
		Completions:    fakeContent{},
		ServerInfo:     mcp.Implementation{Name: "taskwire", Version: "1.0.0-test"},
		Instructions:   "Tasks live on boards; call tasks_list before changing a task.",
		MaxBodyBytes:   1024,
		Logger:         logger,
		SessionKeys:    [][]byte{testSessionKey},
		now:            testNow,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}
