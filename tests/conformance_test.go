package tests

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// With --conformance the suite's fixtures are served through the same
// front door and worker as the board, to requests without a token, which
// act as a read-only fixture member.
func TestConformanceMode(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setup{Name: "sqlite+embedded-nats", Conformance: true})
	ctx := context.Background()
	var asked []string
	cs, _ := h.Client(t, "", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, r.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"test_image_content", "test_input_required_result_multi_round", "tasks_list"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list without a token lacks %s: %v", want, names)
		}
	}
	if slices.Contains(names, "tasks_create") {
		t.Error("the fixture member may create tasks: requests without a token must stay read-only")
	}

	img, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_image_content", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := img.Content[0].(*mcp.ImageContent); len(img.Content) != 1 || !ok || c.MIMEType != "image/png" || len(c.Data) == 0 {
		t.Errorf("test_image_content = %+v, want one PNG image", img.Content)
	}

	// An input round through the worker: the client is asked, answers,
	// and the retry carries the sealed state back.
	hello, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_elicitation", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || !strings.Contains(nodetest.Text(hello), "Ada") {
		t.Errorf("elicitation round: asked %q, result %q; want one question and a greeting for Ada", asked, nodetest.Text(hello))
	}

	bin, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
	if err != nil {
		t.Fatal(err)
	}
	if c := bin.Contents; len(c) != 1 || c[0].MIMEType != "image/png" || len(c[0].Blob) == 0 {
		t.Errorf("test://static-binary = %+v, want a PNG blob", c)
	}

	// The board is still there, and still the caller's tenant's.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_list", Arguments: map[string]any{}}); err != nil {
		t.Errorf("tasks_list as the fixture member: %v", err)
	}

	// DNS rebinding: a request that reached the loopback port through
	// another name is refused.
	req, _ := http.NewRequest(http.MethodPost, h.Sys.Endpoint, strings.NewReader(`{}`))
	req.Host = "evil.example.com"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("request with Host evil.example.com: %d, want 403", resp.StatusCode)
	}
}
