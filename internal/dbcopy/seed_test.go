package dbcopy_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// seeded is a serve's data directory with a day's work in it, every kind
// of row the services write, and the system still running on it.
type seeded struct {
	db string // sqlite:<path>
	h  *nodetest.Harness
}

// seed starts Taskwire as serve does, on SQLite, and works a little
// through the admin API and MCP: an assistant and its token, a board,
// tasks with links, comments, a move, a context note, work approved and
// claimed, work an assistant asked a person to approve, and a signing key rotated. Each call is audited and each
// change of a task leaves activity.
func seed(t *testing.T) *seeded {
	t.Helper()
	h := nodetest.Start(t, nodetest.Setups()[0])
	a := nodetest.NewAdminClient(t, h)
	admin := h.AdminToken(t, "owner")
	post := func(bearer, method, body string) map[string]any {
		t.Helper()
		code, m := a.Post(bearer, method, body)
		if code != 200 {
			t.Fatalf("%s %s = %d %v", method, body, code, m)
		}
		return m
	}
	post(admin, "AddMember", `{"handle":"claude","displayName":"Claude","kind":"MEMBER_KIND_ASSISTANT","role":"MEMBER_ROLE_MEMBER","sponsor":"owner"}`)
	claudeToken := post(admin, "CreateToken", `{"member":"claude","scopes":["read","comment","write"],"label":"laptop"}`)["token"].(string)
	post(admin, "CreateBoard", `{"board":"ops","name":"Operations","wipLimits":[{"lane":"LANE_DOING","limit":3}]}`)
	post(h.OperatorSecret(t), "RotateSigningKey", `{}`)

	owner, _ := h.Client(t, h.Token, nil)
	var refs []string
	for i := range 3 {
		task := nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": fmt.Sprintf("Move the board %d", i), "note": "Zürich, 東京 and a {\"json\": true} look-alike", "labels": []string{"db", "ops"}})
		refs = append(refs, task["task"].(map[string]any)["ref"].(string))
	}
	nodetest.CallOK(t, owner, "tasks_update", map[string]any{"ref": refs[0], "add_links": []map[string]any{{"kind": "blocks", "ref": refs[1]}}})
	nodetest.CallOK(t, owner, "tasks_move", map[string]any{"ref": refs[1], "lane": "doing"})
	nodetest.CallOK(t, owner, "comments_add", map[string]any{"ref": refs[0], "body": "Copied before the move."})
	nodetest.CallOK(t, owner, "context_add", map[string]any{"body": "PostgreSQL from now on."})
	nodetest.CallOK(t, owner, "work_approve", map[string]any{"ref": refs[2], "plan": "Copy it; verify it.", "lease_minutes": 30})
	claude, _ := h.Client(t, claudeToken, nil)
	nodetest.CallOK(t, claude, "work_next", nil)
	// An assistant may only ask for approval: the decision waits for a
	// person in the console, and the call is refused meanwhile.
	claude.CallTool(context.Background(), &mcp.CallToolParams{Name: "work_approve", Arguments: map[string]any{"ref": refs[0], "plan": "Mine."}})
	return &seeded{db: "sqlite:" + filepath.Join(h.Sys.Config().DataDir, "taskwire.db"), h: h}
}
