// Command gosdkpeer is the benchmark's peer built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): a stateless Streamable HTTP
// server with tasks_get and tasks_list over a Taskwire SQLite file, opened
// read-only.
package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/bench/peerserve"
	"github.com/taskwire/taskwire/bench/taskdb"
)

type getIn struct {
	Ref string `json:"ref" jsonschema:"the task's ref, like T-12"`
}

type getOut struct {
	Task taskdb.Task `json:"task"`
}

type listIn struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"how many tasks, 1 to 100, default 25"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the ref to continue after"`
}

type listOut struct {
	Tasks      []taskdb.Task `json:"tasks"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

func main() {
	peerserve.Main("gosdkpeer", "127.0.0.1:18090", func(db *taskdb.DB) http.Handler {
		srv := mcp.NewServer(&mcp.Implementation{Name: "gosdkpeer", Version: "bench"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "tasks_get", Description: "Get one task by its ref."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in getIn) (*mcp.CallToolResult, getOut, error) {
				t, err := db.Get(ctx, in.Ref)
				if errors.Is(err, taskdb.ErrNotFound) {
					return toolError(err), getOut{}, nil
				}
				return nil, getOut{Task: t}, err
			})
		mcp.AddTool(srv, &mcp.Tool{Name: "tasks_list", Description: "List tasks by ref."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
				tasks, next, err := db.Page(ctx, in.Cursor, in.Limit)
				if errors.Is(err, taskdb.ErrBadCursor) {
					return toolError(err), listOut{}, nil
				}
				return nil, listOut{Tasks: tasks, NextCursor: next}, err
			})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	})
}

func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}
