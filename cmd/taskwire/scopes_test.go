package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestTokenScopes mints a read-only token with the token create command and
// checks that it sees only the reading tools, cannot write, and that a
// tampered token is refused with 401.
func TestTokenScopes(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"token", "create", "--member", "owner", "--scopes", "read",
		"--data", h.Sys.Config().DataDir, "--public-url", h.Sys.Config().PublicURL}, &out, &errOut)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, errOut.String())
	}
	readOnly := strings.TrimSpace(out.String())

	cs, _ := h.Client(t, readOnly, nil)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"boards_list", "boards_get", "members_list", "context_get", "tasks_get", "tasks_list", "tasks_search", "comments_list", "whoami", "audit_list"}; !slices.Equal(names, want) {
		t.Errorf("read-only token sees tools %v, want %v", names, want)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_create", Arguments: map[string]any{"title": "x"}}); err == nil {
		t.Error("tasks_create with a read-only token succeeded, want a refusal")
	}
	boards := nodetest.CallOK(t, cs, "boards_list", nil)
	if b := boards["items"].([]any)[0].(map[string]any); b["slug"] != "main" || b["is_default"] != true {
		t.Errorf("boards_list = %v, want the default board main", boards)
	}

	// A token whose signature does not match is refused before any tool.
	tampered := readOnly[:len(readOnly)-4] + "AAAA"
	req, _ := http.NewRequest("POST", h.Sys.Endpoint, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+tampered)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("tampered token: %d %q, want 401 with resource_metadata", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	var unknown bytes.Buffer
	err = run(ctx, []string{"token", "create", "--member", "nobody", "--data", h.Sys.Config().DataDir}, &unknown, &unknown)
	if err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("token create for an unknown member = %v, want an error naming it", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Error("unexpected cancellation")
	}
}
