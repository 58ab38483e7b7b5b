package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestAdminBoards: the owner creates a board with the CLI, and then with
// boards_create, and an open listen stream hears each time that the
// resources changed; tasks go on it over MCP;
// archived, it leaves the lists and refuses new tasks with a sentence
// saying how to bring it back; the default board cannot be archived.
func TestAdminBoards(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	owner := h.AdminToken(t, "owner")
	changed := make(chan struct{}, 16)
	cs, _ := h.Client(t, h.Token, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})

	// Created until the stream has subscribed: creating the board again
	// is refused, so each round adds another.
	n := 0
	poll.Until(t, 10*time.Second, "the listen stream to hear of a new board", func() bool {
		n++
		slug := "ops" + strings.Repeat("x", n-1)
		if out := a.cliOK(owner, "boards", "create", slug, "--name", "Operations"); !strings.Contains(out, slug) || !strings.Contains(out, "Operations") {
			t.Fatalf("boards create %s printed %q", slug, out)
		}
		select {
		case <-changed:
			return true
		case <-time.After(50 * time.Millisecond):
			return false
		}
	})
	// boards_create, over MCP, tells the stream too.
	for len(changed) > 0 {
		<-changed
	}
	nodetest.CallOK(t, cs, "boards_create", map[string]any{"slug": "web", "name": "Web"})
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Errorf("the listen stream never heard of the board boards_create made")
	}
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"board": "ops", "title": "Rotate the keys"})
	if _, err := a.cli(owner, "boards", "create", "ops", "--name", "Again"); err == nil || !strings.Contains(err.Error(), `has a board "ops" already`) {
		t.Errorf("boards create ops again = %v, want the slug named as taken", err)
	}
	if code, body := a.Post(owner, "CreateBoard", `{"board":"ops","name":"Again"}`); code != http.StatusConflict || body["code"] != "failed_precondition" {
		t.Errorf("CreateBoard(ops) again over JSON = %d %v, want 409 failed_precondition", code, body)
	}

	if out := a.cliOK(owner, "boards", "archive", "ops"); !strings.Contains(out, "archived board ops") {
		t.Errorf("boards archive ops printed %q", out)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_create", Arguments: map[string]any{"board": "ops", "title": "One more"}})
	if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "board ops is archived") || !strings.Contains(nodetest.Text(res), "taskwire admin boards unarchive ops") {
		t.Errorf("tasks_create on the archived board = %v, %v, want a tool error saying it is archived and how to unarchive", nodetest.Text(res), err)
	}
	if out := a.cliOK(owner, "boards", "list"); strings.Contains(out, "ops ") || !strings.Contains(out, "main") {
		t.Errorf("boards list = %q, want main without ops", out)
	}
	if out := a.cliOK(owner, "boards", "list", "--archived"); !strings.Contains(out, "ops ") {
		t.Errorf("boards list --archived = %q, want ops", out)
	}
	if _, err := a.cli(owner, "boards", "archive", "main"); err == nil || !strings.Contains(err.Error(), "cannot be archived") {
		t.Errorf("boards archive main = %v, want a refusal", err)
	}
	back, err := a.GRPC.ArchiveBoard(nodetest.AsGRPC(owner), &adminv1.ArchiveBoardRequest{Board: "ops", Archived: new(bool)})
	if err != nil || back.GetBoard().GetArchiveTime() != nil {
		t.Fatalf("ArchiveBoard(ops, archived false) over gRPC = %v, %v", back, err)
	}
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"board": "ops", "title": "One more"})
}
