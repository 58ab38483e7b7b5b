// Command mcpgopeer is the benchmark's peer built on mark3labs/mcp-go: a
// stateless Streamable HTTP server with tasks_get and tasks_list over a
// Taskwire SQLite file, opened read-only.
package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/taskwire/taskwire/bench/peerserve"
	"github.com/taskwire/taskwire/bench/taskdb"
)

func main() {
	peerserve.Main("mcpgopeer", "127.0.0.1:18091", func(db *taskdb.DB) http.Handler {
		s := server.NewMCPServer("mcpgopeer", "bench", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("tasks_get", mcp.WithDescription("Get one task by its ref."),
			mcp.WithString("ref", mcp.Required(), mcp.Description("the task's ref, like T-12"))),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				t, err := db.Get(ctx, req.GetString("ref", ""))
				if errors.Is(err, taskdb.ErrNotFound) {
					return mcp.NewToolResultError(err.Error()), nil
				}
				if err != nil {
					return nil, err
				}
				return mcp.NewToolResultJSON(map[string]any{"task": t})
			})
		s.AddTool(mcp.NewTool("tasks_list", mcp.WithDescription("List tasks by ref."),
			mcp.WithNumber("limit", mcp.Description("how many tasks, 1 to 100, default 25")),
			mcp.WithString("cursor", mcp.Description("the ref to continue after"))),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				tasks, next, err := db.Page(ctx, req.GetString("cursor", ""), req.GetInt("limit", 25))
				if errors.Is(err, taskdb.ErrBadCursor) {
					return mcp.NewToolResultError(err.Error()), nil
				}
				if err != nil {
					return nil, err
				}
				out := map[string]any{"tasks": tasks}
				if next != "" {
					out["next_cursor"] = next
				}
				return mcp.NewToolResultJSON(out)
			})
		return server.NewStreamableHTTPServer(s, server.WithStateLess(true))
	})
}
