package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/sealed"
)

// deleteBoard records the confirmation ids DeleteTask receives.
type deleteBoard struct {
	testBoard
	got atomic.Value
}

func (b *deleteBoard) DeleteTask(_ context.Context, req *taskwirev1.DeleteTaskRequest) (*taskwirev1.DeleteTaskResponse, error) {
	b.got.Store(req.GetConfirmation())
	return &taskwirev1.DeleteTaskResponse{Task: &taskwirev1.Task{Ref: req.GetRef(), Version: 2}}, nil
}

func TestConfirmationBinding(t *testing.T) {
	board := &deleteBoard{}
	box, _ := sealed.NewBox(bytes.Repeat([]byte{7}, sealed.KeySize))
	now := time.Unix(1_800_000_000, 0)
	b := newBackend(t, startWorker(t, board, nil), Config{States: box, Now: func() time.Time { return now }})
	caps := json.RawMessage(`{"elicitation":{}}`)
	ask := &mcp.ToolCall{Name: "tasks_delete", Arguments: json.RawMessage(`{"ref":"T-4"}`), ClientCapabilities: caps}

	res, err := b.CallTool(context.Background(), writer, ask, nil)
	if err != nil || res.InputRequired == nil || res.InputRequired.RequestState == "" {
		t.Fatalf("first tasks_delete = %+v, %v; want input_required", res, err)
	}
	form := res.InputRequired.InputRequests["confirm"]
	if form.Method != "elicitation/create" || form.Params.(map[string]any)["message"] != "Delete task T-4? It can be restored later with tasks_restore." {
		t.Errorf("input request = %+v, want an elicitation form asking about T-4", form)
	}
	state := res.InputRequired.RequestState
	retry := func(caller any, args, answer string, at time.Duration) (*mcp.CallToolResult, error) {
		now = time.Unix(1_800_000_000, 0).Add(at)
		c := writer
		if caller != nil {
			c.Member = 8
		}
		return b.CallTool(context.Background(), c, &mcp.ToolCall{
			Name: "tasks_delete", Arguments: json.RawMessage(args), ClientCapabilities: caps,
			RequestState: state, InputResponses: json.RawMessage(`{"confirm":` + answer + `,"other":{"x":1}}`),
		}, nil)
	}
	yes := `{"action":"accept","content":{"confirm":true}}`

	var je *jsonrpc.Error
	if _, err := retry(1, `{"ref":"T-4"}`, yes, 0); !errors.As(err, &je) || je.Code != jsonrpc.InvalidParams {
		t.Errorf("another member's retry = %v, want -32602", err)
	}
	if _, err := retry(nil, `{"ref":"T-5"}`, yes, 0); !errors.As(err, &je) || je.Code != jsonrpc.InvalidParams {
		t.Errorf("retry with other arguments = %v, want -32602", err)
	}
	if res, err := retry(nil, `{"ref":"T-4"}`, yes, 11*time.Minute); err != nil || res.InputRequired == nil {
		t.Errorf("retry after the state expired = %+v, %v; want to be asked again", res, err)
	}
	if res, err := retry(nil, `{"ref":"T-4"}`, `{"action":"accept","content":{"confirm":false}}`, time.Minute); err != nil || !res.IsError {
		t.Errorf("retry with confirm false = %+v, %v; want an isError result", res, err)
	}
	if board.got.Load() != nil {
		t.Fatalf("the worker was called (confirmation %v) before a yes", board.got.Load())
	}
	if res, err := retry(nil, ` { "ref" : "T-4" } `, yes, time.Minute); err != nil || res.IsError || res.InputRequired != nil {
		t.Fatalf("confirmed retry = %+v, %v; want the delete's result", res, err)
	}
	if id, _ := board.got.Load().(string); id == "" {
		t.Error("the worker got no confirmation id")
	}

	noCaps := *ask
	noCaps.ClientCapabilities = json.RawMessage(`{"elicitation":{"url":{}}}`)
	if _, err := b.CallTool(context.Background(), writer, &noCaps, nil); !errors.As(err, &je) || je.Code != jsonrpc.MissingRequiredClientCapability {
		t.Errorf("tasks_delete from a client with URL elicitation only = %v, want -32021", err)
	}
}
