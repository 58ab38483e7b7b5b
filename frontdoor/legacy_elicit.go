package frontdoor

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mailbox"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// In the legacy era a server asks its client for input with requests of
// its own (elicitation/create, sampling/createMessage, roots/list), sent on
// the stream of the call that needs the input. The client POSTs each
// answer to whichever replica it reaches; the mailbox brings it to the
// replica holding the call, which retries the call with the answers as
// 2026-07-28's inputResponses would carry them.

// maxAskRounds bounds how often one legacy call asks its client.
const maxAskRounds = 3

// askTimeout bounds how long a legacy call waits for an answer, which may
// need a person.
const askTimeout = 10 * time.Minute

// errCannotAsk reports input a legacy session cannot be asked for.
var errCannotAsk = errors.New("frontdoor: input cannot be asked for on this session")

// askRefused reports a client that answered a request of ours with an error,
// or not in time: the call cannot go on without the answer.
type askRefused struct {
	method string
	why    string
}

func (r *askRefused) Error() string { return "the client did not answer " + r.method + ": " + r.why }

// askCapability names the client capability each request of ours needs.
var askCapability = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// canAsk reports whether this legacy session can be sent a request of
// method: it declared the capability, and answers can find their way back
// here.
func (x *exchange) canAsk(method string) bool {
	name, ok := askCapability[method]
	return ok && x.h.cfg.Mailbox != nil && isObject(x.declared()[name])
}

// declared returns the capabilities the session declared at initialize.
func (x *exchange) declared() map[string]json.RawMessage {
	var caps map[string]json.RawMessage
	json.Unmarshal(x.ses.Capabilities, &caps)
	return caps
}

// legacyCapabilities are the client capabilities a call of this session
// may use: those of the session that it can be asked for on the call's
// stream. Declared elicitation means form mode, the only one of
// 2025-06-18; 2025-11-25 adds URL mode when declared.
func (x *exchange) legacyCapabilities() json.RawMessage {
	caps := map[string]any{}
	declared := x.declared()
	for method, name := range askCapability {
		if x.canAsk(method) {
			caps[name] = declared[name]
		}
	}
	if _, ok := caps["elicitation"]; ok {
		modes := map[string]any{"form": map[string]any{}}
		var e map[string]json.RawMessage
		if json.Unmarshal(declared["elicitation"], &e) == nil && isObject(e["url"]) && x.ses.Version != mcp.Version20250618 {
			modes["url"] = e["url"]
		}
		caps["elicitation"] = modes
	}
	raw, _ := json.Marshal(caps) // raw JSON and maps of it always encode
	return raw
}

// legacyRequest is a request from server to client, sent on a call's
// stream in the legacy era.
type legacyRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// askRound sends each input request of a round to the client and waits
// for the answers, returning them as inputResponses for the retry. A
// request the session cannot be asked is errCannotAsk, and nothing is
// sent.
func (x *exchange) askRound(ctx context.Context, ir *mcp.InputRequiredResult) (json.RawMessage, error) {
	for _, req := range ir.InputRequests {
		if !x.canAsk(req.Method) {
			return nil, errCannotAsk
		}
	}
	answers := map[string]json.RawMessage{}
	for key, req := range ir.InputRequests {
		answer, err := x.ask(ctx, req.Method, req.Params)
		if err != nil {
			return nil, err
		}
		if p, ok := req.Params.(mcp.ElicitURL); ok {
			if err := x.awaitPerson(ctx, p, answer); err != nil {
				return nil, err
			}
		}
		answers[key] = answer
	}
	return json.Marshal(answers)
}

// ask sends the client one request and returns its result. An
// elicitation the client fails or leaves unanswered counts as cancelled,
// which the tool knows how to take; any other request then fails the
// call with askRefused.
func (x *exchange) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := "taskwire-" + rand.Text()
	box, err := x.h.cfg.Mailbox.Open(x.responseKey(json.RawMessage(`"` + id + `"`)))
	if err != nil {
		return nil, err
	}
	defer box.Close()
	if method == "elicitation/create" {
		params = x.legacyElicitParams(params)
	}
	data, err := json.Marshal(legacyRequest{JSONRPC: jsonrpc.Version, ID: id, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	if !x.out.send(data) {
		return nil, context.Canceled
	}
	timeout := time.NewTimer(askTimeout)
	defer timeout.Stop()
	var answer clientAnswer
	select {
	case payload := <-box.C:
		answer = readAnswer(payload)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timeout.C:
		answer.Error = &jsonrpc.Error{Message: fmt.Sprintf("no answer within %v", askTimeout)}
	}
	switch {
	case answer.Error == nil:
		return answer.Result, nil
	case method == "elicitation/create":
		return json.RawMessage(`{"action":"cancel"}`), nil
	}
	return nil, &askRefused{method: method, why: answer.Error.Message}
}

// legacyElicitParams drops what the session's revision does not know
// (2025-06-18 has no elicitation modes) and adds what it needs (the
// elicitationId of 2025-11-25's URL mode).
func (x *exchange) legacyElicitParams(params any) any {
	if p, ok := params.(mcp.ElicitURL); ok {
		return p.Legacy()
	}
	m, ok := params.(map[string]any)
	if !ok || x.ses.Version != mcp.Version20250618 {
		return params
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "mode" {
			out[k] = v
		}
	}
	return out
}

// responseKey names the answer to a server request of this session.
func (x *exchange) responseKey(id json.RawMessage) string {
	return mailbox.Key(x.r.Header.Get(mcp.HeaderSessionID), "response", compactID(id))
}

// clientAnswer is what the mailbox carries from the replica that took a
// legacy client's response to the replica waiting for it: the result, or
// the error.
type clientAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsonrpc.Error  `json:"error,omitempty"`
}

// readAnswer reads a mailbox payload. A payload with neither member is a
// bare result, as replicas of the previous release forward it.
func readAnswer(payload []byte) clientAnswer {
	var a clientAnswer
	if json.Unmarshal(payload, &a) != nil || a.Result == nil && a.Error == nil {
		return clientAnswer{Result: payload}
	}
	return a
}

// forwardResponse brings a legacy client's answer to a server request to
// the replica waiting for it.
func (x *exchange) forwardResponse() {
	if x.h.cfg.Mailbox == nil || x.msg.Kind != jsonrpc.Response {
		return
	}
	payload, err := json.Marshal(clientAnswer{Result: x.msg.Result, Error: x.msg.Error})
	if err == nil {
		err = x.h.cfg.Mailbox.Send(x.responseKey(x.msg.ID), payload)
	}
	if err != nil {
		x.h.cfg.Logger.WarnContext(x.r.Context(), "forwarding a client response failed", "err", err)
	}
}
