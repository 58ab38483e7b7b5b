package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
)

// An assistant's call of a tool with a confirm question waits for a
// person: the front door asks DecisionService for a decision and answers
// input_required with a URL-mode elicitation pointing at the decision's
// page in the console, and a sealed requestState naming the decision. The
// retry reads the decision: still pending, the same elicitation again;
// declined, a tool error with the person's reason; expired or used, a new
// decision; approved, the tool runs with the decision's id as its
// confirmation, which the worker uses up. A call without the state (a
// client without URL elicitation calling again) runs on the approved,
// unused decision of the same caller, tool and arguments, if a person
// approved it in the inbox. An assistant that declares form
// elicitation cannot answer for the person: the form is never offered.

const (
	pending  = taskwirev1.DecisionState_DECISION_STATE_PENDING
	approved = taskwirev1.DecisionState_DECISION_STATE_APPROVED
	declined = taskwirev1.DecisionState_DECISION_STATE_DECLINED
)

// confirmByPerson decides whether an assistant's call may run, as confirm
// does: the decision's id to attach, or what to answer instead.
func (b *Backend) confirmByPerson(ctx context.Context, c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, digest string, st *confirmState) (string, *mcp.CallToolResult, error) {
	var d *taskwirev1.Decision
	if st != nil && st.Decision != "" {
		var err error
		if d, err = b.getDecision(ctx, c, st.Decision); err != nil && status.Code(err) != codes.NotFound {
			res, err := b.failure(ctx, t.Def.Name, err)
			return "", res, err
		}
	}
	switch d.GetState() {
	case approved:
		return d.GetId(), nil, nil
	case declined:
		return "", declinedResult(d), nil
	case pending:
	default: // none yet, expired, or used by an earlier call
		var err error
		if d, err = b.requestDecision(ctx, c, t, call, digest); err != nil {
			res, err := b.failure(ctx, t.Def.Name, err)
			return "", res, err
		}
		if d.GetState() == approved { // approved in the inbox meanwhile
			return d.GetId(), nil, nil
		}
	}
	if call.Tasks {
		return "", nil, &awaiting{decision: d.GetId()}
	}
	res, err := b.askPerson(c, t, call, digest, d)
	return "", res, err
}

// awaiting is what confirm returns for the call of a client that
// declared the MCP Tasks extension, instead of asking it to retry: the
// call becomes an MCP task (startTask) that waits for a person's
// decision in the console, or for the person at the client to confirm
// the question (answered with tasks/update, taskinput.go).
type awaiting struct{ decision, confirm string }

func (*awaiting) Error() string { return "toolcall: the call waits for a person" }

// askPerson answers with the URL-mode elicitation of decision d.
func (b *Backend) askPerson(c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, digest string, d *taskwirev1.Decision) (*mcp.CallToolResult, error) {
	page, err := b.decisionURL(c.Tenant, d.GetId())
	if err != nil {
		return nil, err
	}
	if !urlElicitation(call.ClientCapabilities) {
		// The same words for every call: the page's address is random,
		// and the console's inbox lists the decision anyway.
		return nil, &jsonrpc.Error{
			Code: jsonrpc.MissingRequiredClientCapability,
			Message: fmt.Sprintf("%s needs a person of %s to approve it, and this request did not declare the elicitation capability (url mode) to send them to the decision's page; the decision waits for them in the console's inbox",
				t.Def.Name, c.Tenant),
			Data: map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}},
		}
	}
	if b.cfg.States == nil {
		return nil, fmt.Errorf("toolcall: %s needs confirmation but no state keys are configured", t.Def.Name)
	}
	raw, err := json.Marshal(confirmState{
		Tenant: c.Tenant, Member: c.Member, Tool: t.Def.Name, Digest: digest,
		Expires: b.now().Add(b.cfg.StateTTL).Unix(), Decision: d.GetId(),
	})
	if err != nil {
		return nil, err
	}
	msg := d.GetQuestion() + " Only a person of " + c.Tenant + " can approve this: open the page, or ask someone who may to approve it there."
	return &mcp.CallToolResult{InputRequired: &mcp.InputRequiredResult{
		InputRequests: map[string]mcp.InputRequest{confirmKey: {Method: "elicitation/create", Params: mcp.NewElicitURL(msg, page, d.GetId())}},
		RequestState:  b.cfg.States.Seal(statePurpose, raw),
	}}, nil
}

// decisionURL is the console's page of decision id of tenant.
func (b *Backend) decisionURL(tenant, id string) (string, error) {
	if b.cfg.PublicURL == "" {
		return "", fmt.Errorf("toolcall: an assistant's call needs a person's decision, but no PublicURL is configured for its page")
	}
	return strings.TrimSuffix(b.cfg.PublicURL, "/") + "/t/" + url.PathEscape(tenant) + "/decisions/" + url.PathEscape(id), nil
}

// declinedResult tells the model that a person declined, and why.
func declinedResult(d *taskwirev1.Decision) *mcp.CallToolResult {
	who := d.GetDecidedBy()
	if who == "" {
		who = "a person"
	}
	text := fmt.Sprintf("Not done: %s declined: %s. Do not retry unless they ask you to.", who, strings.TrimRight(d.GetReason(), ". "))
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}, IsError: true}
}

func (b *Backend) decisions(ctx context.Context, c identity.Caller) (taskwirev1.DecisionServiceClient, context.Context) {
	return taskwirev1.NewDecisionServiceClient(b.cfg.Conn), identity.AppendToOutgoing(ctx, c)
}

// requestDecision asks for a decision on call, or finds the pending one.
func (b *Backend) requestDecision(ctx context.Context, c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, digest string) (*taskwirev1.Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, accessTimeout)
	defer cancel()
	args := string(call.Arguments)
	if args == "" {
		args = "{}"
	}
	client, ctx := b.decisions(ctx, c)
	resp, err := client.RequestDecision(ctx, &taskwirev1.RequestDecisionRequest{
		Tool: t.Def.Name, Question: question(t, call.Arguments), ArgumentsJson: args, Digest: digest,
	})
	return resp.GetDecision(), err
}

// getDecision reads decision id as c.
func (b *Backend) getDecision(ctx context.Context, c identity.Caller, id string) (*taskwirev1.Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, accessTimeout)
	defer cancel()
	client, ctx := b.decisions(ctx, c)
	resp, err := client.GetDecision(ctx, &taskwirev1.GetDecisionRequest{Id: id})
	return resp.GetDecision(), err
}

// AwaitDecision returns once decision id, asked for by c, is no longer
// pending, or when ctx ends: a legacy client, which cannot retry on its
// own, waits on the call's stream meanwhile. It hears of the decision on
// the tenant's events, and asks the workers every DecisionPoll in case an
// event is lost.
func (b *Backend) AwaitDecision(ctx context.Context, c identity.Caller, id string) error {
	changed := make(chan struct{}, 1)
	if b.cfg.Events != nil {
		stop, err := b.cfg.Events.Subscribe(c.Tenant, func(ev events.Event) {
			if ev.Kind == events.DecisionsChanged && ev.Ref == id {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		})
		if err != nil {
			b.log.WarnContext(ctx, "toolcall: waiting for a decision without events", "err", err)
		} else {
			defer stop()
		}
	}
	tick := time.NewTicker(b.cfg.DecisionPoll)
	defer tick.Stop()
	for {
		d, err := b.getDecision(ctx, c, id)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return err
		case d.GetState() != pending:
			return nil
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// urlElicitation reports whether capabilities declare URL-mode
// elicitation: "elicitation": {"url": {...}}.
func urlElicitation(capabilities json.RawMessage) bool {
	var caps struct {
		Elicitation map[string]json.RawMessage `json:"elicitation"`
	}
	if json.Unmarshal(capabilities, &caps) != nil {
		return false
	}
	url, ok := caps.Elicitation["url"]
	return ok && len(url) > 0 && url[0] == '{'
}
