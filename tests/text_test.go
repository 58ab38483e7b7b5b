package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestHiddenTextThroughTheServer: through the whole system, a title with a
// bidi override is refused (isError) naming the character and where it
// is; a comment keeps its text but loses its zero-width characters; text
// is stored in NFC; and importing the same list twice creates nothing the
// second time, reporting every draft as skipped.
func TestHiddenTextThroughTheServer(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			cs, _ := h.Client(t, h.Token, nil)
			ctx := context.Background()

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_create", Arguments: map[string]any{"title": "Approve \u202egnp.exe\u202c invoice"}})
			want := "title has U+202E RIGHT-TO-LEFT OVERRIDE"
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), want) || !strings.Contains(nodetest.Text(res), "at character 9") {
				t.Errorf("tasks_create with U+202E = %v, %v; want isError saying %q at character 9", res, err, want)
			}

			task := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Cafe\u0301 menu"})["task"].(map[string]any)
			if task["title"] != "Café menu" {
				t.Errorf("title stored as %q, want the NFC form %q", task["title"], "Café menu")
			}
			ref := task["ref"].(string)
			nodetest.CallOK(t, cs, "comments_add", map[string]any{"ref": ref, "body": "Looks\u200b good\u2060 to me\ufeff. Cre\u0300me"})
			comments := nodetest.CallOK(t, cs, "comments_list", map[string]any{"ref": ref})["items"].([]any)
			if body := comments[0].(map[string]any)["body"]; body != "Looks good to me. Crème" {
				t.Errorf("comment stored as %q, want %q", body, "Looks good to me. Crème")
			}

			list := map[string]any{"tasks": []map[string]any{{"title": "Plan the retro"}, {"title": "Book the room"}}}
			if first := nodetest.CallOK(t, cs, "tasks_import", list); first["imported"] != float64(2) {
				t.Fatalf("first tasks_import = %v, want 2 imported", first)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_import", Arguments: list})
			if err != nil || res.IsError {
				t.Fatalf("second tasks_import = %v, %v", res, err)
			}
			again := nodetest.Structured(t, res)
			if again["imported"] != float64(0) || len(again["refs"].([]any)) != 0 || len(again["skipped"].([]any)) != 2 {
				t.Errorf("second tasks_import = %v, want nothing imported and both drafts skipped", again)
			}
			if !strings.Contains(nodetest.Text(res), "Skipped 2 drafts") || !strings.Contains(nodetest.Text(res), `"Plan the retro" repeats T-`) {
				t.Errorf("second tasks_import text = %q, want it to name the skipped drafts", nodetest.Text(res))
			}
		})
	}
}
