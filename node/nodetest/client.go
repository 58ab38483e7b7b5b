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
	rec := NewWireRecorder(t, token, "", http.DefaultTransport)
	c := mcp.NewClient(&mcp.Implementation{Name: "taskwire-e2e", Version: "1.0.0"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             h.Sys.Endpoint,
		HTTPClient:           &http.Client{Transport: rec},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}

// LegacyClient connects the go-sdk client at version, a revision before
// 2026-07-28, so that it starts with initialize.
func (h *Harness) LegacyClient(t *testing.T, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *WireRecorder) {
	t.Helper()
	rec := NewWireRecorder(t, h.Token, version, http.DefaultTransport)
	c := mcp.NewClient(&mcp.Implementation{Name: "taskwire-e2e-legacy", Version: "1.0.0"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             h.Sys.Endpoint,
		HTTPClient:           &http.Client{Transport: rec},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}
