package nodetest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/node"
)

// AdminClient drives the admin API of a harness: JSON over HTTP, and gRPC
// on the same port.
type AdminClient struct {
	T    *testing.T
	Base string // the public URL, e.g. http://127.0.0.1:41234
	GRPC adminv1.AdminServiceClient
}

// NewAdminClient connects to the admin API of h.
func NewAdminClient(t *testing.T, h *Harness) *AdminClient {
	t.Helper()
	base := h.Sys.Config().PublicURL
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &AdminClient{T: t, Base: base, GRPC: adminv1.NewAdminServiceClient(conn)}
}

// Post POSTs body to the JSON method with bearer; it returns the status
// and the decoded answer.
func (a *AdminClient) Post(bearer, method, body string) (int, map[string]any) {
	a.T.Helper()
	req, _ := http.NewRequest(http.MethodPost, a.Base+"/admin/v1/"+method, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.T.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &out); err != nil {
		a.T.Fatalf("%s answered %d %s, not JSON", method, resp.StatusCode, data)
	}
	return resp.StatusCode, out
}

// AsGRPC is a context whose gRPC calls carry bearer.
func AsGRPC(bearer string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+bearer)
}

// OperatorSecret reads the secret the harness's first start created,
// checking that the start showed it: printed by Setup.FirstStart, or
// handed out by the system.
func (h *Harness) OperatorSecret(t *testing.T) string {
	t.Helper()
	secret, err := node.ReadSecretFile(h.Sys.Config().OperatorSecretFile)
	if err != nil {
		t.Fatal(err)
	}
	if shown := strings.Contains(h.Out, secret) || secret == h.newSecret; !shown {
		t.Errorf("the first start did not show the operator secret:\n%s", h.Out)
	}
	return secret
}

// MCPStatus POSTs tools/list with token and returns the HTTP status.
func (h *Harness) MCPStatus(t *testing.T, token string) int {
	t.Helper()
	return ToolsListStatus(t, h.Sys.Endpoint, "", token)
}
