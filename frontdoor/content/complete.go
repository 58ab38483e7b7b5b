package content

import (
	"context"
	"slices"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// Complete suggests values for an argument of a prompt or of the context
// template. The reference must name one of them (else -32602); the values
// depend on the argument's name alone: board → board slugs, ref → task
// refs, lane → lane names, anything else → none.
func (b *Backend) Complete(ctx context.Context, c identity.Caller, req *mcp.CompleteRequest) (*mcp.Completion, error) {
	if err := checkRef(req); err != nil {
		return nil, err
	}
	switch req.Argument {
	case "board":
		return b.completeBoards(ctx, c, req.Value)
	case "ref":
		return b.completeRefs(ctx, c, req.Value)
	case "lane":
		return completeLanes(req.Value), nil
	}
	return &mcp.Completion{Values: []string{}}, nil
}

// checkRef refuses a reference to a prompt or template that does not
// exist.
func checkRef(req *mcp.CompleteRequest) error {
	switch {
	case req.RefType == mcp.RefPrompt && slices.ContainsFunc(prompts, func(p mcp.Prompt) bool { return p.Name == req.RefName }):
		return nil
	case req.RefType == mcp.RefResource && req.RefName == ContextTemplate:
		return nil
	case req.RefType == mcp.RefPrompt:
		return &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "Unknown prompt: " + req.RefName, Data: map[string]string{"prompt": req.RefName}}
	}
	return &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "Unknown resource template: " + req.RefName, Data: map[string]string{"uri": req.RefName}}
}

func (b *Backend) completeBoards(ctx context.Context, c identity.Caller, prefix string) (*mcp.Completion, error) {
	boards, err := b.boards(ctx, c)
	if err != nil {
		return nil, err
	}
	var slugs []string
	for _, bd := range boards {
		slugs = append(slugs, bd.GetSlug())
	}
	return matching(slugs, prefix), nil
}

func (b *Backend) completeRefs(ctx context.Context, c identity.Caller, prefix string) (*mcp.Completion, error) {
	ctx, cancel := b.as(ctx, c)
	defer cancel()
	resp, err := b.board.CompleteRefs(ctx, &taskwirev1.CompleteRefsRequest{Prefix: prefix})
	if err != nil {
		return nil, translate(err, "CompleteRefs", invalidParams)
	}
	out := &mcp.Completion{Values: []string{}, Total: int(resp.GetTotal())}
	for _, t := range resp.GetTasks() {
		out.Values = append(out.Values, t.GetRef())
	}
	out.HasMore = out.Total > len(out.Values)
	return out, nil
}

func completeLanes(prefix string) *mcp.Completion {
	var lanes []string
	for _, l := range []taskwirev1.Lane{taskwirev1.Lane_LANE_BACKLOG, taskwirev1.Lane_LANE_NEXT, taskwirev1.Lane_LANE_DOING, taskwirev1.Lane_LANE_DONE} {
		lanes = append(lanes, laneName(l))
	}
	return matching(lanes, prefix)
}

// matching returns the values that start with prefix, ignoring case, at
// most mcp.MaxCompletionValues of them.
func matching(values []string, prefix string) *mcp.Completion {
	out := &mcp.Completion{Values: []string{}}
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			out.Values = append(out.Values, v)
		}
	}
	out.Total = len(out.Values)
	if len(out.Values) > mcp.MaxCompletionValues {
		out.Values, out.HasMore = out.Values[:mcp.MaxCompletionValues], true
	}
	return out
}
