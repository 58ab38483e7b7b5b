package toolcall

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// A tool with a confirm question runs only after a person said yes. For
// a person calling through their own token, the first call answers
// input_required with an elicitation form and a sealed requestState; the
// client's retry carries the answer and the state back. The state is
// bound to the caller, the tool and the arguments, expires, and names a
// confirmation id that the worker uses up in the same transaction as the
// change, so it allows one change only. An assistant cannot answer for a
// person: it is sent to a decision's page instead (decide.go). A tool
// marked confirm_assistants_only (work_approve) asks only for
// assistants: a person's own call runs without a question, and the
// worker refuses an assistant's call that carries no decision.

// statePurpose keeps request states apart from anything else sealed with
// the same keys.
const statePurpose = "taskwire/mcp request-state v1"

// confirmKey names the one input request a confirmation makes.
const confirmKey = "confirm"

type confirmState struct {
	Tenant  string `json:"t"`
	Member  int    `json:"m"`
	Tool    string `json:"tool"`
	Digest  string `json:"d"`   // of the arguments, canonical JSON
	Expires int64  `json:"exp"` // unix seconds
	ID      string `json:"id"`  // the confirmation id the worker uses up
	// Decision names the decision a person makes for an assistant's call
	// (decide.go); empty for a form.
	Decision string `json:"dec,omitempty"`
}

// confirm decides whether call may run. It returns the confirmation id to
// attach, or else the result or error to send instead of running.
func (b *Backend) confirm(ctx context.Context, c identity.Caller, t *catalog.Tool, call *mcp.ToolCall) (string, *mcp.CallToolResult, error) {
	digest, err := mrtr.ArgsDigest(call.Arguments)
	if err != nil {
		return "", nil, err
	}
	var st *confirmState
	if call.RequestState != "" {
		opened, err := b.openState(call.RequestState)
		if err != nil || opened.Tenant != c.Tenant || opened.Member != c.Member || opened.Tool != t.Def.Name || opened.Digest != digest {
			return "", nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams,
				Message: "invalid params: requestState was not issued for this call (same tool, arguments and caller); call again without it"}
		}
		st = &opened
	}
	if assistant, err := b.isAssistant(ctx, c); err != nil || assistant {
		if err != nil {
			return "", nil, err
		}
		return b.confirmByPerson(ctx, c, t, call, digest, st)
	}
	if t.ConfirmAssistantsOnly {
		return "", nil, nil // a person's own call needs no question
	}
	if st == nil {
		res, err := b.ask(c, t, call, digest)
		return "", res, err
	}
	answer, answered := confirmAnswer(call.InputResponses)
	if b.now().Unix() > st.Expires || !answered {
		res, err := b.ask(c, t, call, digest) // ask again rather than fail
		return "", res, err
	}
	if !answer {
		return "", &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(notConfirmed(question(t, call.Arguments)))}, IsError: true}, nil
	}
	return st.ID, nil, nil
}

// notConfirmed is the tool result's text when the person did not
// confirm question.
func notConfirmed(question string) string {
	return fmt.Sprintf("Not done: the person did not confirm %q. Do not retry unless they ask you to.", question)
}

// ask answers with the confirmation form, if the request may be answered
// with one. The call of a client that declared the MCP Tasks extension
// becomes a task waiting for the same form instead (awaiting, taskinput.go).
func (b *Backend) ask(c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, digest string) (*mcp.CallToolResult, error) {
	if !formElicitation(call.ClientCapabilities) {
		return nil, &jsonrpc.Error{
			Code:    jsonrpc.MissingRequiredClientCapability,
			Message: fmt.Sprintf("%s needs a person to confirm it, and this request did not declare the elicitation capability (form mode)", t.Def.Name),
			Data:    map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}},
		}
	}
	if call.Tasks {
		return nil, &awaiting{confirm: question(t, call.Arguments)}
	}
	if b.cfg.States == nil {
		return nil, fmt.Errorf("toolcall: %s needs confirmation but no state keys are configured", t.Def.Name)
	}
	raw, err := json.Marshal(confirmState{
		Tenant: c.Tenant, Member: c.Member, Tool: t.Def.Name, Digest: digest,
		Expires: b.now().Add(b.cfg.StateTTL).Unix(), ID: rand.Text(),
	})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{InputRequired: &mcp.InputRequiredResult{
		InputRequests: map[string]mcp.InputRequest{confirmKey: {Method: "elicitation/create", Params: confirmForm(question(t, call.Arguments))}},
		RequestState:  b.cfg.States.Seal(statePurpose, raw),
	}}, nil
}

// confirmForm is the params of the elicitation/create asking the person
// to confirm q, as JSON (and structpb) take them.
func confirmForm(q string) map[string]any {
	return map[string]any{
		"mode":    "form",
		"message": q,
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Confirm", "description": q},
			},
			"required": []any{"confirm"},
		},
	}
}

func (b *Backend) openState(s string) (confirmState, error) {
	var st confirmState
	if b.cfg.States == nil {
		return st, fmt.Errorf("toolcall: no state keys")
	}
	raw, err := b.cfg.States.Open(statePurpose, s)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(raw, &st)
}

func (b *Backend) now() time.Time {
	if b.cfg.Now != nil {
		return b.cfg.Now()
	}
	return time.Now()
}

// confirmAnswer reads the person's answer from the retry's inputResponses:
// yes only for an accepted form with confirm true. answered is false when
// there is no answer under our key (unknown keys are ignored).
func confirmAnswer(responses json.RawMessage) (yes, answered bool) {
	var all map[string]json.RawMessage
	if json.Unmarshal(responses, &all) != nil {
		return false, false
	}
	raw, ok := all[confirmKey]
	if !ok {
		return false, false
	}
	var r struct {
		Action  string `json:"action"`
		Content struct {
			Confirm bool `json:"confirm"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Action == "" {
		return false, false
	}
	return r.Action == "accept" && r.Content.Confirm, true
}

// formElicitation reports whether capabilities declare form elicitation:
// "elicitation": {} means form only; otherwise "form" must be present.
func formElicitation(capabilities json.RawMessage) bool {
	var caps struct {
		Elicitation map[string]json.RawMessage `json:"elicitation"`
	}
	if json.Unmarshal(capabilities, &caps) != nil || caps.Elicitation == nil {
		return false
	}
	_, form := caps.Elicitation["form"]
	_, url := caps.Elicitation["url"]
	return form || !url
}

var placeholder = regexp.MustCompile(`\{([a-z_]+)\}`)

// question fills the tool's confirm question with the call's arguments.
func question(t *catalog.Tool, args json.RawMessage) string {
	var values map[string]any
	json.Unmarshal(args, &values)
	return placeholder.ReplaceAllStringFunc(t.Confirm, func(m string) string {
		if s, ok := values[m[1:len(m)-1]].(string); ok {
			return s
		}
		return m
	})
}
