package frontdoor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/progress"
)

// headerTool is a tool whose inputSchema mirrors region, priority,
// verbose and target.zone into Mcp-Param headers; runs counts its calls.
func headerTool(runs *atomic.Int32) *fakeBackend {
	tool := newTool("route_call", authz.ScopeRead, func(_ context.Context, args json.RawMessage, _ progress.Reporter) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return textResult("ran with " + string(args))
	})
	tool.tool.InputSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},` +
		`"priority":{"type":"integer","x-mcp-header":"Priority"},` +
		`"verbose":{"type":"boolean","x-mcp-header":"Verbose"},` +
		`"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},` +
		`"query":{"type":"string"}}}`)
	return &fakeBackend{tools: []fakeTool{tool}}
}

// TestParamHeadersAccepted: a call whose Mcp-Param headers say what its
// arguments say runs, values a header cannot carry as they are arriving
// in the =?base64?…?= form, integers compared as numbers, and no header
// expected for an argument that is absent or null.
func TestParamHeadersAccepted(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		headers map[string]string
	}{
		{"plain", `{"region":"us-west1","priority":3,"verbose":false}`,
			map[string]string{"Mcp-Param-Region": "us-west1", "Mcp-Param-Priority": "3", "Mcp-Param-Verbose": "false"}},
		{"nested", `{"target":{"zone":"b"}}`, map[string]string{"Mcp-Param-Zone": "b"}},
		{"internal spaces", `{"region":"us west 1"}`, map[string]string{"Mcp-Param-Region": "us west 1"}},
		{"non-ASCII encoded", `{"region":"Hello, 世界"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?="}},
		{"padded encoded", `{"region":" padded "}`, map[string]string{"Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?="}},
		{"newline encoded", `{"region":"line1\nline2"}`, map[string]string{"Mcp-Param-Region": "=?base64?bGluZTEKbGluZTI=?="}},
		{"sentinel encoded", `{"region":"=?base64?literal?="}`, map[string]string{"Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}},
		{"no suffix is literal", `{"region":"=?base64?SGVsbG8="}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8="}},
		{"integer as a number", `{"priority":42}`, map[string]string{"Mcp-Param-Priority": "42.0"}},
		{"negative integer", `{"priority":-7}`, map[string]string{"Mcp-Param-Priority": "-7"}},
		{"null and absent", `{"verbose":null,"query":"x"}`, nil},
		{"no arguments", ``, nil},
		{"undeclared header ignored", `{"query":"x"}`, map[string]string{"Mcp-Param-Query": "y"}},
	}
	for _, tt := range tests {
		var runs atomic.Int32
		h := newTestHandler(t, headerTool(&runs), nil)
		rec := serve(h, paramCall(t, tt.args, tt.headers))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "ran with") || runs.Load() != 1 {
			t.Errorf("%s: %d %s (ran %d times), want 200 and one run", tt.name, rec.Code, rec.Body, runs.Load())
		}
	}
}

// TestParamHeadersRefused: a call whose Mcp-Param headers are missing,
// differ from its arguments or are malformed gets 400 with -32020
// (HeaderMismatch) and its id, and the tool does not run.
func TestParamHeadersRefused(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		headers map[string]string
		want    string
	}{
		{"missing", `{"region":"us-west1"}`, nil, "Mcp-Param-Region header is required"},
		{"one of two missing", `{"region":"us-west1","priority":1}`, map[string]string{"Mcp-Param-Region": "us-west1"}, "Mcp-Param-Priority header is required"},
		{"nested missing", `{"target":{"zone":"b"}}`, nil, "arguments.target.zone"},
		{"mismatch", `{"region":"us-west1"}`, map[string]string{"Mcp-Param-Region": "eu-west1"}, "does not match arguments.region"},
		{"value case", `{"region":"us-west1"}`, map[string]string{"Mcp-Param-Region": "US-WEST1"}, "does not match"},
		{"boolean spelling", `{"verbose":true}`, map[string]string{"Mcp-Param-Verbose": "True"}, "does not match arguments.verbose"},
		{"integer", `{"priority":3}`, map[string]string{"Mcp-Param-Priority": "4"}, "does not match arguments.priority"},
		{"integer not a number", `{"priority":3}`, map[string]string{"Mcp-Param-Priority": "three"}, "does not match"},
		{"header for an absent argument", `{"query":"x"}`, map[string]string{"Mcp-Param-Region": "us-west1"}, "is there but arguments.region is not"},
		{"header for a null argument", `{"region":null}`, map[string]string{"Mcp-Param-Region": "null"}, "is there but arguments.region is not"},
		{"raw non-ASCII", `{"region":"Zürich"}`, map[string]string{"Mcp-Param-Region": "Zürich"}, "send the value as =?base64?"},
		{"raw control character", `{"region":"a\u0001b"}`, map[string]string{"Mcp-Param-Region": "a\x01b"}, "send the value as =?base64?"},
		{"base64 padding", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}, "invalid base64"},
		{"base64 characters", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}, "invalid base64"},
		{"encoded mismatch", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8h?="}, "does not match"},
	}
	for _, tt := range tests {
		var runs atomic.Int32
		h := newTestHandler(t, headerTool(&runs), nil)
		rec := serve(h, paramCall(t, tt.args, tt.headers))
		var msg struct {
			ID    json.RawMessage
			Error jsonrpc.Error
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &msg); err != nil {
			t.Fatalf("%s: %s is no JSON-RPC message: %v", tt.name, rec.Body, err)
		}
		if rec.Code != http.StatusBadRequest || msg.Error.Code != jsonrpc.HeaderMismatch || string(msg.ID) != "7" ||
			!strings.Contains(msg.Error.Message, tt.want) || runs.Load() != 0 {
			t.Errorf("%s: %d %s (ran %d times), want 400, -32020 for id 7 saying %q, and no run", tt.name, rec.Code, rec.Body, runs.Load(), tt.want)
		}
	}
}

// TestParamHeadersTwice: a header sent twice is refused even when both
// copies match, as the standard headers are.
func TestParamHeadersTwice(t *testing.T) {
	var runs atomic.Int32
	h := newTestHandler(t, headerTool(&runs), nil)
	req := paramCall(t, `{"region":"us-west1"}`, nil)
	req.Header.Add("Mcp-Param-Region", "us-west1")
	req.Header.Add("Mcp-Param-Region", "us-west1")
	if rec := serve(h, req); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "must appear once") || runs.Load() != 0 {
		t.Errorf("two Mcp-Param-Region headers: %d %s, want 400 saying it must appear once", rec.Code, rec.Body)
	}
}

// TestParamHeadersLegacy: sessions of 2025-06-18 and 2025-11-25 predate
// Mcp-Param headers; their calls run whatever those headers say.
func TestParamHeadersLegacy(t *testing.T) {
	for _, version := range []string{mcp.Version20250618, mcp.Version20251125} {
		for _, hdr := range []string{"", "eu-west1"} {
			var runs atomic.Int32
			h := newTestHandler(t, headerTool(&runs), nil)
			sid, _ := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, version, nil)
			req := legacyPost(sid, version, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route_call","arguments":{"region":"us-west1"}}}`)
			if hdr != "" {
				req.Header.Set("Mcp-Param-Region", hdr)
			}
			rec := serve(h, req)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "ran with") || runs.Load() != 1 {
				t.Errorf("%s with Mcp-Param-Region %q: %d %s, want 200 and one run", version, hdr, rec.Code, rec.Body)
			}
		}
	}
}

// paramCall is a modern tools/call of route_call, id 7, with args (a JSON
// object, or empty for none) and the extra headers.
func paramCall(t *testing.T, args string, headers map[string]string) *http.Request {
	t.Helper()
	params := map[string]any{"name": "route_call"}
	if args != "" {
		params["arguments"] = json.RawMessage(args)
	}
	req := newCall(t, 7, "tools/call", params, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if req.ContentLength > 1024 {
		panic(fmt.Sprintf("paramCall: %d bytes exceed the test handler's body limit", req.ContentLength))
	}
	return req
}
