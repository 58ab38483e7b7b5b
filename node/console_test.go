package node

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestConsoleRoute: the console takes every path but those of the MCP
// endpoint, the admin API (JSON and gRPC) and /.well-known/.
func TestConsoleRoute(t *testing.T) {
	con := consoleRoute{mcpPath: endpointPath("http://127.0.0.1:8080"), handler: http.NotFoundHandler()}
	for path, want := range map[string]bool{
		"/":                      true,
		"/signin":                true,
		"/t/acme/tasks/T-1":      true,
		"/assets/console.css":    true,
		"/api/mcp":               false,
		"/admin/v1/ListTenants":  false,
		"/.well-known/jwks.json": false,
		"/.well-known/oauth-protected-resource/api/mcp": false,
	} {
		if got := con.takes(httptest.NewRequest("GET", path, nil)); got != want {
			t.Errorf("console takes %s = %t, want %t", path, got, want)
		}
	}
	grpcCall := httptest.NewRequest("POST", "/taskwire.admin.v1.AdminService/ListTenants", nil)
	grpcCall.ProtoMajor = 2
	grpcCall.Header.Set("Content-Type", "application/grpc")
	if con.takes(grpcCall) {
		t.Error("the console takes a gRPC call of the admin API")
	}
	if (consoleRoute{mcpPath: "/api/mcp"}).takes(httptest.NewRequest("GET", "/", nil)) {
		t.Error("a front door without a console sends requests to it")
	}
}

// TestOAuthEdgeRoute: the OAuth edge takes its discovery document and
// endpoints before the console and the MCP handler; the console keeps
// the authorization page.
func TestOAuthEdgeRoute(t *testing.T) {
	cfg := FrontdoorConfig{PublicURL: "http://127.0.0.1:8080", Log: slog.New(slog.DiscardHandler)}
	conn, err := grpc.NewClient("passthrough:///unused", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	edge, err := newOAuthEdge(cfg, conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	con := consoleRoute{mcpPath: "/api/mcp", handler: http.NotFoundHandler(), edge: edge}
	for path, want := range map[string]bool{
		"/.well-known/oauth-authorization-server": true,
		"/oauth/token":     true,
		"/oauth/register":  true,
		"/oauth/revoke":    true,
		"/oauth/authorize": false,
		"/api/mcp":         false,
		"/.well-known/oauth-protected-resource/api/mcp": false,
	} {
		if got := con.edgeTakes(httptest.NewRequest("POST", path, nil)); got != want {
			t.Errorf("the edge takes %s = %t, want %t", path, got, want)
		}
	}
	if !con.takes(httptest.NewRequest("GET", "/oauth/authorize", nil)) {
		t.Error("the console does not take its authorization page")
	}
}
