package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// A legacy client cannot retry a call on its own once a person decided:
// after it was asked to open a decision's page (a URL-mode elicitation of
// 2025-11-25), the call waits on its stream until the person decided,
// tells the client the flow is done (notifications/elicitation/complete),
// and is retried with the decision made.

// DecisionWaiter is what a ToolBackend whose tools wait for a person's
// decision offers legacy calls (toolcall.Backend is one).
type DecisionWaiter interface {
	// AwaitDecision returns once decision id, asked for by c, is decided
	// (or expired), or with ctx's error.
	AwaitDecision(ctx context.Context, c identity.Caller, id string) error
}

// undecided reports a decision a legacy call could not wait for.
type undecided struct {
	url string
	why string
}

func (u *undecided) Error() string { return "no decision: " + u.why }

// awaitPerson waits until the person decided on p's decision, the client
// having answered answer to being asked to open its page, and then tells
// the client the flow is done.
func (x *exchange) awaitPerson(ctx context.Context, p mcp.ElicitURL, answer json.RawMessage) error {
	waiter, ok := x.h.cfg.Tools.(DecisionWaiter)
	if !ok || p.ElicitationID == "" {
		return nil // the retry asks again
	}
	var a struct{ Action string }
	json.Unmarshal(answer, &a) // no action reads as not accepted
	if a.Action != "accept" {
		return &undecided{url: p.URL, why: "the page was not opened"}
	}
	wait, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	switch err := waiter.AwaitDecision(wait, x.caller, p.ElicitationID); {
	case err == nil:
		x.out.notify(mcp.MethodElicitationComplete, mcp.ElicitationComplete{ElicitationID: p.ElicitationID})
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return &undecided{url: p.URL, why: fmt.Sprintf("no one decided within %v", askTimeout)}
	default:
		return err
	}
}

// undecidedResult is the tool error of a call whose decision is still
// waiting for a person.
func (x *exchange) undecidedResult(u *undecided) *mcp.CallToolResult {
	x.toolError = true
	text := "Not done: " + x.tool + " needs a person's approval, and " + u.why + ". The decision waits in the console at " + u.url +
		": call " + x.tool + " again once a person approved it there."
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}, IsError: true}
}
