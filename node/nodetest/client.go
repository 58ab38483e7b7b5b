package nodetest

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client connects the go-sdk MCP client at 2026-07-28 with token, every
// server message validated against the schema by the returned recorder.
func (h *Harness) Client(t *testing.T, token string, opts *mcp.ClientOptions) (*mcp.ClientSession, *WireRecorder) {
	t.Helper()
	return h.connect(t, token, "", "taskwire-e2e", opts)
}

// LegacyClient connects the go-sdk client at version, a revision before
// 2026-07-28, so that it starts with initialize.
func (h *Harness) LegacyClient(t *testing.T, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *WireRecorder) {
	t.Helper()
	return h.connect(t, h.Token, version, "taskwire-e2e-legacy", opts)
}

// connect connects the go-sdk client named name with token, at version
// ("" for the client's own), through a recorder that validates every
// server message.
func (h *Harness) connect(t *testing.T, token, version, name string, opts *mcp.ClientOptions) (*mcp.ClientSession, *WireRecorder) {
	t.Helper()
	rec := NewWireRecorder(t, token, version, http.DefaultTransport)
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, opts)
	var sessOpts *mcp.ClientSessionOptions
	if version != "" {
		sessOpts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             h.Sys.Endpoint,
		HTTPClient:           &http.Client{Transport: rec},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, sessOpts)
	if err != nil {
		t.Fatalf("Connect at %q: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}
