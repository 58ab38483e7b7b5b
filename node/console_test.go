package node

import (
	"net/http"
	"net/http/httptest"
	"testing"
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
