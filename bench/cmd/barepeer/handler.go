package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/taskwire/taskwire/bench/taskdb"
)

// maxBody is the largest request body read: the load generator's requests
// are a few hundred bytes.
const maxBody = 64 << 10

// request is the part of a JSON-RPC tools/call request the bare peer reads.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string `json:"name"`
		Arguments struct {
			Ref    string `json:"ref"`
			Limit  int    `json:"limit"`
			Cursor string `json:"cursor"`
		} `json:"arguments"`
	} `json:"params"`
}

// text is one text content block.
type text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// result is a tools/call result in the shape the other peers send: the
// structured value, and the same value as JSON text for clients that read
// only content.
type result struct {
	Content           []text `json:"content"`
	StructuredContent any    `json:"structuredContent,omitempty"`
	IsError           bool   `json:"isError,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *result         `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type listOut struct {
	Tasks      []taskdb.Task `json:"tasks"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// handler answers tools/call for tasks_get and tasks_list; any other
// method or tool is a JSON-RPC error, since the benchmark sends none.
type handler struct {
	db *taskdb.DB
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a JSON-RPC request", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "could not read the request body; send it again", http.StatusBadRequest)
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		reply(w, response{Error: &rpcError{Code: -32700, Message: "the body is not JSON: " + err.Error()}})
		return
	}
	resp := response{ID: req.ID}
	if req.Method != "tools/call" {
		resp.Error = &rpcError{Code: -32601, Message: "only tools/call is served here"}
	} else {
		resp.Result, resp.Error = h.call(r, &req)
	}
	reply(w, resp)
}

// call runs the tool req names and returns its result or a protocol error.
func (h *handler) call(r *http.Request, req *request) (*result, *rpcError) {
	args := req.Params.Arguments
	var out any
	var err error
	switch req.Params.Name {
	case "tasks_get":
		var t taskdb.Task
		t, err = h.db.Get(r.Context(), args.Ref)
		out = map[string]any{"task": t}
	case "tasks_list":
		var l listOut
		l.Tasks, l.NextCursor, err = h.db.Page(r.Context(), args.Cursor, args.Limit)
		out = l
	default:
		return nil, &rpcError{Code: -32602, Message: "unknown tool " + req.Params.Name + "; this peer has tasks_get and tasks_list"}
	}
	if errors.Is(err, taskdb.ErrNotFound) || errors.Is(err, taskdb.ErrBadCursor) {
		return &result{Content: []text{{Type: "text", Text: err.Error()}}, IsError: true}, nil
	}
	if err != nil {
		return nil, &rpcError{Code: -32603, Message: err.Error()}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &rpcError{Code: -32603, Message: err.Error()}
	}
	return &result{Content: []text{{Type: "text", Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

func reply(w http.ResponseWriter, resp response) {
	resp.JSONRPC = "2.0"
	b, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
