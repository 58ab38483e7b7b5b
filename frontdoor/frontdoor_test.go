package frontdoor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/progress"
)

func TestNewValidatesConfig(t *testing.T) {
	good := Config{Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(), SessionKeys: [][]byte{testSessionKey}, Logger: discardLog}
	tests := []struct {
		name   string
		change func(*Config)
		want   string // part of the error, "" for none
	}{
		{"good", func(*Config) {}, ""},
		{"no endpoint", func(c *Config) { c.Endpoint = "" }, "Endpoint is required"},
		{"relative endpoint", func(c *Config) { c.Endpoint = "/api/mcp" }, "not an absolute"},
		{"ftp endpoint", func(c *Config) { c.Endpoint = "ftp://h/api/mcp" }, "not an absolute"},
		{"endpoint with query", func(c *Config) { c.Endpoint = testEndpoint + "?a=b" }, "query"},
		{"no verifier", func(c *Config) { c.Verifier = nil }, "Verifier"},
		{"no tools", func(c *Config) { c.Tools = nil }, "Tools"},
		{"no logger", func(c *Config) { c.Logger = nil }, "Logger is required"},
		{"negative body limit", func(c *Config) { c.MaxBodyBytes = -1 }, "MaxBodyBytes"},
		{"origin with path", func(c *Config) { c.AllowedOrigins = []string{"https://a.example/x"} }, "allowed origin"},
		{"origin without scheme", func(c *Config) { c.AllowedOrigins = []string{"a.example"} }, "allowed origin"},
		{"no session keys", func(c *Config) { c.SessionKeys = nil }, "SessionKeys is required"},
		{"short session key", func(c *Config) { c.SessionKeys = [][]byte{[]byte("short")} }, "SessionKeys[0] has 5 bytes"},
		{"repeated session key", func(c *Config) { c.SessionKeys = [][]byte{testSessionKey, testSessionKey} }, "SessionKeys[1] repeats"},
	}
	for _, tt := range tests {
		cfg := good
		tt.change(&cfg)
		_, err := New(cfg)
		if got := fmt.Sprint(err); (tt.want == "") != (err == nil) || !strings.Contains(got, tt.want) {
			t.Errorf("%s: New() error = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestNormalizeOrigin(t *testing.T) {
	tests := map[string]string{
		"http://127.0.0.1:8080":      "http://127.0.0.1:8080",
		"HTTP://Example.COM:80":      "http://example.com",
		"https://example.com:443/":   "https://example.com",
		"https://example.com:8443":   "https://example.com:8443",
		"http://[::1]:80":            "http://[::1]",
		"null":                       "",
		"https://example.com/path":   "",
		"https://user@example.com":   "",
		"https://example.com?x=1":    "",
		"mailto:someone@example.com": "",
	}
	for in, want := range tests {
		got, err := normalizeOrigin(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("normalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestDefaultBodyLimit(t *testing.T) {
	h, err := New(Config{Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(), SessionKeys: [][]byte{testSessionKey}, Logger: discardLog})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		size int
		want int
	}{
		{DefaultMaxBodyBytes, http.StatusOK},
		{DefaultMaxBodyBytes + 1, http.StatusRequestEntityTooLarge},
	} {
		req := newCall(t, 1, "server/discover", nil, nil)
		// No Content-Length: the limit must hold while reading.
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(paddedDiscover(t, tt.size))), -1
		if rec := serve(h, req); rec.Code != tt.want {
			t.Errorf("body of %d bytes: status %d, want %d", tt.size, rec.Code, tt.want)
		}
	}
}

// paddedDiscover returns a server/discover request of exactly size bytes.
func paddedDiscover(t *testing.T, size int) []byte {
	t.Helper()
	prefix := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"com.example/pad":"`
	suffix := `"}}}`
	pad := size - len(prefix) - len(suffix)
	if pad < 0 {
		t.Fatalf("size %d too small", size)
	}
	return []byte(prefix + strings.Repeat("x", pad) + suffix)
}

func TestDecodeHeader(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"tasks_list", "tasks_list", true},
		{"=?base64?dMOiY2hlcw==?=", "tâches", true},
		{"=?base64??=", "", true},
		{"=?BASE64?dGFza3M=?=", "=?BASE64?dGFza3M=?=", true}, // markers are lower case only
		{"=?base64?dGFza3M=", "=?base64?dGFza3M=", true},     // no suffix: literal
		{"=?base64?dGFza3M?=", "", false},                    // missing padding
		{"=?base64?not base64?=", "", false},
		{"=?base64?/w==?=", "", false}, // 0xff is not UTF-8
		{"us west\t1", "us west\t1", true},
		{"tâches", "", false}, // non-ASCII must be sent encoded
		{"a\x01b", "", false}, // so must control characters
	}
	for _, tt := range tests {
		got, err := decodeHeader(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("decodeHeader(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestStatusFor(t *testing.T) {
	tests := map[int]int{
		jsonrpc.MethodNotFound:                  404,
		jsonrpc.InvalidParams:                   400,
		jsonrpc.HeaderMismatch:                  400,
		jsonrpc.MissingRequiredClientCapability: 400,
		jsonrpc.UnsupportedProtocolVersion:      400,
		jsonrpc.InvalidRequest:                  400,
		jsonrpc.ParseError:                      400,
		jsonrpc.Internal:                        200,
		-31000:                                  200,
	}
	for code, want := range tests {
		if got := statusFor(code, false); got != want {
			t.Errorf("statusFor(%d, false) = %d, want %d", code, got, want)
		}
	}
	// A rate limit is 429 in either era; every other JSON-RPC error of a
	// legacy session goes out with 200.
	for code := range tests {
		if got := statusFor(code, true); got != 200 {
			t.Errorf("statusFor(%d, true) = %d, want 200", code, got)
		}
	}
	for _, legacy := range []bool{false, true} {
		if got := statusFor(jsonrpc.RateLimited, legacy); got != 429 {
			t.Errorf("statusFor(RateLimited, %t) = %d, want 429", legacy, got)
		}
	}
}

// TestToolsListPagination walks every page of a long list and checks that
// the pages are disjoint, in order, complete, and that cursors are stable.
func TestToolsListPagination(t *testing.T) {
	b := &fakeBackend{}
	for i := range 123 {
		b.tools = append(b.tools, newTool(fmt.Sprintf("tool_%03d", i), authz.ScopeRead, nil))
	}
	h := newTestHandler(t, b, nil)
	var names []string
	cursor, pages := "", 0
	for {
		page := listPage(t, h, cursor)
		if again := listPage(t, h, cursor); again.NextCursor != page.NextCursor {
			t.Fatalf("cursor %q gave next %q, then %q", cursor, page.NextCursor, again.NextCursor)
		}
		for _, tool := range page.Tools {
			names = append(names, tool.Name)
		}
		pages++
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if pages != 3 || len(names) != 123 || names[0] != "tool_000" || names[122] != "tool_122" {
		t.Fatalf("walked %d pages, %d tools (%v … %v), want 3 pages of 123 tools in order", pages, len(names), names[0], names[len(names)-1])
	}
	// A cursor whose tool has gone is refused rather than silently skipping.
	cursor = listPage(t, h, "").NextCursor
	b.tools = b.tools[60:]
	rec := serve(h, newCall(t, 1, "tools/list", map[string]any{"cursor": cursor}, nil))
	if rec.Code != http.StatusBadRequest || !bytes.Contains(rec.Body.Bytes(), []byte(`"code":-32602`)) {
		t.Errorf("stale cursor: %d %s, want 400 with -32602", rec.Code, rec.Body)
	}
}

type listPageResult struct {
	Tools      []mcp.Tool
	NextCursor string
	CacheScope string
}

func listPage(t *testing.T, h http.Handler, cursor string) listPageResult {
	t.Helper()
	rec := serve(h, newCall(t, 1, "tools/list", map[string]any{"cursor": cursor}, nil))
	var res listPageResult
	decodeResult(t, rec.Body.Bytes(), &res)
	if res.CacheScope != mcp.CachePrivate {
		t.Errorf("cacheScope = %q, want private on every page", res.CacheScope)
	}
	return res
}

// TestCallToolPassesCallerAndArgs checks what the backend receives.
func TestCallToolPassesCallerAndArgs(t *testing.T) {
	var gotArgs string
	var gotReport progress.Reporter
	b := &fakeBackend{tools: []fakeTool{newTool("echo", authz.ScopeRead,
		func(_ context.Context, args json.RawMessage, report progress.Reporter) (*mcp.CallToolResult, error) {
			gotArgs, gotReport = string(args), report
			return &mcp.CallToolResult{}, nil
		})}}
	h := newTestHandler(t, b, nil)
	rec := serve(h, newCall(t, 1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"ref": "T-1"}}, nil))
	if rec.Code != http.StatusOK || gotArgs != `{"ref":"T-1"}` || gotReport != nil {
		t.Errorf("call: status %d, args %s, report set %v; want 200, {\"ref\":\"T-1\"}, no reporter", rec.Code, gotArgs, gotReport != nil)
	}
	if !bytes.Contains(rec.Body.Bytes(), []byte(`"content":[]`)) {
		t.Errorf("a result without content must send content: [], got %s", rec.Body)
	}
}

// TestMetadataForRootEndpoint checks the metadata paths of an endpoint
// served at the root.
func TestMetadataForRootEndpoint(t *testing.T) {
	h, err := New(Config{Endpoint: "https://mcp.example", Verifier: fakeVerifier{}, Tools: goldenBackend(), SessionKeys: [][]byte{testSessionKey}, Logger: discardLog})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(h, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"resource":"https://mcp.example"`) {
		t.Errorf("metadata: %d %s", rec.Code, rec.Body)
	}
	if h.metadataURL != "https://mcp.example/.well-known/oauth-protected-resource" {
		t.Errorf("metadataURL = %q", h.metadataURL)
	}
}

// TestMetadataNamesIssuer: the protected-resource metadata lists the
// authorization server as configured, the public URL with its path, which
// is the issuer its RFC 8414 document carries.
func TestMetadataNamesIssuer(t *testing.T) {
	h, err := New(Config{Endpoint: "https://tw.example/board/api/mcp", Issuer: "https://tw.example/board", Verifier: fakeVerifier{},
		Tools: goldenBackend(), SessionKeys: [][]byte{testSessionKey}, Logger: discardLog})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(h, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/board/api/mcp", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"authorization_servers":["https://tw.example/board"]`) {
		t.Errorf("metadata: %d %s", rec.Code, rec.Body)
	}
}
