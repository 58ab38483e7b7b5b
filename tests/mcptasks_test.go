package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// tasksExtension is the MCP Tasks extension a client declares to get
// tool calls answered as tasks (protocol operations, not board tasks).
const tasksExtension = "io.modelcontextprotocol/tasks"

// taskClient is a 2026-07-28 client over raw HTTP (the go-sdk has no
// MCP Tasks extension), declaring the extension unless plain.
type taskClient struct {
	t        *testing.T
	hc       *http.Client
	endpoint string
	token    string
	caps     map[string]any
	id       int
}

func newTaskClient(t *testing.T, hc *http.Client, endpoint, token string, caps map[string]any) *taskClient {
	if caps == nil {
		caps = map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}
	}
	return &taskClient{t: t, hc: hc, endpoint: endpoint, token: token, caps: caps}
}

// rpc sends method with params (about name) and returns the raw
// response message, checked against the core schema.
func (c *taskClient) rpc(method, name string, params map[string]any) []byte {
	c.t.Helper()
	c.id++
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": c.caps,
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	req := nodetest.MCPRequest(c.t, c.endpoint, c.token, method, name, string(body))
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw = lastEvent(raw)
	}
	return raw
}

// lastEvent is the data of the last event of an SSE stream: the response.
func lastEvent(stream []byte) []byte {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			last = bytes.TrimSpace(append([]byte{}, data...))
		}
	}
	return last
}

// taskAnswer is a response of the tasks surface, decoded.
type taskAnswer struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnswer(t *testing.T, raw []byte) taskAnswer {
	t.Helper()
	var a taskAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("response %s: %v", raw, err)
	}
	return a
}

// resultOf validates raw, a result response, against the core schema
// and, if def is set, its result against def of the Tasks extension.
func resultOf(t *testing.T, raw []byte, def string) map[string]any {
	t.Helper()
	mcptest.ValidateMessage(t, raw, "JSONRPCResultResponse")
	a := decodeAnswer(t, raw)
	if a.Error != nil || a.Result == nil {
		t.Fatalf("response = %s, want a result", raw)
	}
	if def != "" {
		res, _ := json.Marshal(a.Result)
		mcptest.ValidateMessageAt(t, mcptest.TasksExtension, res, def)
	}
	return a.Result
}

// call calls tool and returns the CreateTaskResult it answers with.
func (c *taskClient) startTask(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	res := resultOf(c.t, c.rpc("tools/call", tool, map[string]any{"name": tool, "arguments": args}), "CreateTaskResult")
	if res["resultType"] != "task" || res["taskId"] == "" {
		c.t.Fatalf("tools/call %s = %v, want a task", tool, res)
	}
	return res
}

// get polls task id once.
func (c *taskClient) get(id string) map[string]any {
	c.t.Helper()
	return resultOf(c.t, c.rpc("tasks/get", id, map[string]any{"taskId": id}), "GetTaskResult")
}

// await polls task id until its status is one of want, and returns it.
func (c *taskClient) await(id string, want ...string) map[string]any {
	c.t.Helper()
	var last map[string]any
	poll.Until(c.t, 30*time.Second, "task "+id+" to be "+strings.Join(want, " or "), func() bool {
		last = c.get(id)
		for _, w := range want {
			if last["status"] == w {
				return true
			}
		}
		return false
	})
	return last
}

// checkDeletedBy checks that task done, polled to its end, completed
// with board task ref deleted, and that the board no longer has it.
func checkDeletedBy(t *testing.T, done map[string]any, boss *mcp.ClientSession, ref string) {
	t.Helper()
	result, _ := done["result"].(map[string]any)
	sc, _ := result["structuredContent"].(map[string]any)
	deleted, _ := sc["task"].(map[string]any)
	if done["status"] != "completed" || result["isError"] == true || deleted["ref"] != ref {
		t.Fatalf("task = %v, want completed with %s deleted", done, ref)
	}
	res, err := boss.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": ref}})
	if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "deleted") {
		t.Errorf("tasks_get(%s) after the task completed = %v, %v; want it deleted", ref, res, err)
	}
}

func drafts(prefix string, n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"title": fmt.Sprintf("%s %d", prefix, i+1)}
	}
	return out
}

func countTitled(t *testing.T, c *nodetest.Cluster, prefix string) int {
	t.Helper()
	n, err := c.DB.Task.Query().Where(task.TitleHasPrefix(prefix)).Count(privacy.DecisionContext(context.Background(), privacy.Allow))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMCPTaskImport: a client of the MCP Tasks extension gets a
// tasks_import of 150 drafts as a task, which it polls to completion
// through two front doors in turn, reconnecting midway and resuming by
// its taskId; a client without the extension gets the result at once.
func TestMCPTaskImport(t *testing.T) {
	c := nodetest.StartCluster(t, nodetest.Setups()[0])
	lb := nodetest.NewAlternate(c.Fronts)
	client := newTaskClient(t, &http.Client{Transport: lb}, c.Endpoint, c.Token, nil)

	created := client.startTask("tasks_import", map[string]any{"tasks": drafts("Imported", 150), "allow_duplicate": true})
	id := created["taskId"].(string)
	if created["ttlMs"].(float64) <= 0 || created["pollIntervalMs"].(float64) <= 0 {
		t.Errorf("CreateTaskResult = %v, want a positive ttlMs and pollIntervalMs", created)
	}
	first := client.get(id)
	if first["taskId"] != id {
		t.Errorf("tasks/get at once = %v, want task %s", first, id)
	}

	// A new connection (the client restarted) resumes by the taskId.
	again := newTaskClient(t, &http.Client{Transport: nodetest.NewAlternate(c.Fronts)}, c.Endpoint, c.Token, nil)
	done := again.await(id, "completed", "failed", "cancelled")
	if done["status"] != "completed" {
		t.Fatalf("task = %v, want completed", done)
	}
	result := done["result"].(map[string]any)
	sc, _ := result["structuredContent"].(map[string]any)
	if result["isError"] == true || sc == nil || sc["imported"] != float64(150) {
		t.Errorf("completed import's result = %v, want its 150 tasks", result)
	}
	if n := countTitled(t, c, "Imported"); n != 150 {
		t.Errorf("imported tasks in the database = %d, want 150", n)
	}
	if lb.Served[0].Load() == 0 || lb.Served[1].Load() == 0 {
		t.Errorf("requests per front door = %d, %d; want both used", lb.Served[0].Load(), lb.Served[1].Load())
	}
	// Done is done: another poll and a cancel change nothing.
	resultOf(t, client.rpc("tasks/cancel", id, map[string]any{"taskId": id}), "CancelTaskResult")
	if got := client.get(id); got["status"] != "completed" {
		t.Errorf("tasks/get after cancelling a completed task = %v, want completed", got)
	}

	// Without the extension: today's answer, and no tasks/ methods.
	plain := newTaskClient(t, &http.Client{Transport: lb}, c.Endpoint, c.Token, map[string]any{})
	res := resultOf(t, plain.rpc("tools/call", "tasks_import", map[string]any{"name": "tasks_import", "arguments": map[string]any{"tasks": drafts("Plain", 101), "allow_duplicate": true}}), "")
	if res["resultType"] != "complete" || res["taskId"] != nil {
		t.Errorf("tasks_import without the extension = %v, want its result", res)
	}
	a := decodeAnswer(t, plain.rpc("tasks/get", id, map[string]any{"taskId": id}))
	if a.Error == nil || a.Error.Code != -32021 {
		t.Errorf("tasks/get without the extension = %+v, want -32021", a)
	}
	// 100 drafts or fewer run while the client waits.
	res = resultOf(t, client.rpc("tools/call", "tasks_import", map[string]any{"name": "tasks_import", "arguments": map[string]any{"tasks": drafts("Small", 100), "allow_duplicate": true}}), "")
	if res["resultType"] != "complete" {
		t.Errorf("tasks_import of 100 drafts = %v, want its result at once", res)
	}
}

// TestMCPTaskCancelImport: tasks/cancel reaches the worker running the
// import, which stops it: its transaction rolls back, so none of its
// drafts is saved, and the task reads cancelled. On PostgreSQL: the
// import is held inside its transaction, and on SQLite every other write,
// the audit of the poll itself included, would wait for it.
func TestMCPTaskCancelImport(t *testing.T) {
	c := nodetest.StartCluster(t, nodetest.Setups()[1]) // skips without PostgreSQL and NATS
	creates := holdImportAt(c.DB, 30)
	client := newTaskClient(t, &http.Client{Transport: nodetest.NewAlternate(c.Fronts)}, c.Endpoint, c.Token, nil)

	id := client.startTask("tasks_import", map[string]any{"tasks": drafts("Never committed", 150), "allow_duplicate": true})["taskId"].(string)
	poll.Until(t, 10*time.Second, "the import to reach its 30th draft", func() bool { return creates.Load() >= 30 })
	if got := client.get(id); got["status"] != "working" {
		t.Errorf("held import = %v, want working", got)
	}
	ack := resultOf(t, client.rpc("tasks/cancel", id, map[string]any{"taskId": id}), "CancelTaskResult")
	for _, k := range []string{"taskId", "status", "result", "error"} {
		if _, ok := ack[k]; ok {
			t.Errorf("tasks/cancel = %v, want a bare acknowledgement", ack)
		}
	}
	if got := client.await(id, "cancelled", "completed", "failed"); got["status"] != "cancelled" {
		t.Fatalf("cancelled import = %v, want cancelled", got)
	}
	if n := countTitled(t, c, "Never committed"); n != 0 {
		t.Errorf("tasks of the cancelled import saved = %d, want 0", n)
	}
	if n := creates.Load(); n > 30 {
		t.Errorf("the import inserted %d tasks after it was held, want it stopped at the 30th", n)
	}
}

// TestMCPTaskOtherMember: a task is its member's own: another member of
// the tenant, or of another tenant, gets for its id exactly the error of
// an id that never existed, from tasks/get, tasks/update and
// tasks/cancel, and cannot stop it. On PostgreSQL, as TestMCPTaskCancelImport.
func TestMCPTaskOtherMember(t *testing.T) {
	c := nodetest.StartCluster(t, nodetest.Setups()[1])
	creates := holdImportAt(c.DB, 1)
	hc := &http.Client{Transport: nodetest.NewAlternate(c.Fronts)}
	owner := newTaskClient(t, hc, c.Endpoint, c.Token, nil)
	bob, err := tenancy.AddMember(context.Background(), c.DB, "acme", tenancy.MemberSpec{Handle: "bob", Name: "Bob", Kind: member.KindHuman, Role: member.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	c.DB.Tenant.Create().SetSlug("globex").SetName("Globex").SaveX(context.Background())
	gina, err := tenancy.AddMember(context.Background(), c.DB, "globex", tenancy.MemberSpec{Handle: "gina", Role: member.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	strangers := []*taskClient{
		newTaskClient(t, hc, c.Endpoint, nodetest.RecordToken(t, c.DB, c.Issuer, "acme", bob.ID, authz.AllScopes), nil),
		newTaskClient(t, hc, c.Endpoint, nodetest.RecordToken(t, c.DB, c.Issuer, "globex", gina.ID, authz.AllScopes), nil),
	}

	id := owner.startTask("tasks_import", map[string]any{"tasks": drafts("Never committed", 120), "allow_duplicate": true})["taskId"].(string)
	poll.Until(t, 10*time.Second, "the import to start", func() bool { return creates.Load() >= 1 })
	const unknown = "NOSUCHTASK0000000000000000"
	for _, other := range strangers {
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			params := func(id string) map[string]any {
				p := map[string]any{"taskId": id}
				if method == "tasks/update" {
					p["inputResponses"] = map[string]any{}
				}
				return p
			}
			theirs := other.rpc(method, id, params(id))
			none := other.rpc(method, unknown, params(unknown))
			mcptest.ValidateMessage(t, theirs, "JSONRPCErrorResponse")
			a, b := decodeAnswer(t, theirs), decodeAnswer(t, none)
			if a.Error == nil || b.Error == nil || a.Error.Code != -32602 || b.Error.Code != -32602 ||
				strings.ReplaceAll(a.Error.Message, id, "ID") != strings.ReplaceAll(b.Error.Message, unknown, "ID") {
				t.Errorf("%s of another member's task = %s\nof a task that never existed = %s\nwant the same -32602", method, theirs, none)
			}
		}
	}
	if got := owner.get(id); got["status"] != "working" {
		t.Errorf("the owner's task after another member's cancel = %v, want working", got)
	}
	resultOf(t, owner.rpc("tasks/cancel", id, map[string]any{"taskId": id}), "CancelTaskResult")
	owner.await(id, "cancelled")
}
