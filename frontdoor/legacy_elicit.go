package frontdoor

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mailbox"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// maxElicitRounds bounds how often one legacy call asks its client.
const maxElicitRounds = 3

// elicitTimeout bounds how long a legacy call waits for a person.
const elicitTimeout = 10 * time.Minute

// errCannotAsk reports input a legacy session cannot be asked for.
var errCannotAsk = errors.New("frontdoor: input cannot be asked for on this session")

// canElicit reports whether this legacy session can be asked for input:
// it declared elicitation, and answers can find their way back here.
func (x *exchange) canElicit() bool {
	if x.h.cfg.Mailbox == nil {
		return false
	}
	var caps struct {
		Elicitation json.RawMessage `json:"elicitation"`
	}
	return json.Unmarshal(x.ses.Capabilities, &caps) == nil && isObject(caps.Elicitation)
}

// legacyRequest is a request from server to client, sent on a call's
// stream in the legacy era.
type legacyRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// askLegacy sends each input request as an elicitation/create request on
// the call's stream and waits for the client's answers, returning them as
// inputResponses for the retry.
func (x *exchange) askLegacy(ctx context.Context, ir *mcp.InputRequiredResult) (json.RawMessage, error) {
	answers := map[string]json.RawMessage{}
	for key, req := range ir.InputRequests {
		if req.Method != "elicitation/create" {
			return nil, errCannotAsk
		}
		answer, err := x.elicit(ctx, req.Params)
		if err != nil {
			return nil, err
		}
		answers[key] = answer
	}
	return json.Marshal(answers)
}

// elicit asks the client one question and returns its result.
func (x *exchange) elicit(ctx context.Context, params any) (json.RawMessage, error) {
	id := "taskwire-" + rand.Text()
	box, err := x.h.cfg.Mailbox.Open(x.responseKey(json.RawMessage(`"` + id + `"`)))
	if err != nil {
		return nil, err
	}
	defer box.Close()
	data, err := json.Marshal(legacyRequest{JSONRPC: jsonrpc.Version, ID: id, Method: "elicitation/create", Params: x.legacyElicitParams(params)})
	if err != nil {
		return nil, err
	}
	if !x.out.send(data) {
		return nil, context.Canceled
	}
	timeout := time.NewTimer(elicitTimeout)
	defer timeout.Stop()
	select {
	case answer := <-box.C:
		return answer, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timeout.C:
		return json.RawMessage(`{"action":"cancel"}`), nil
	}
}

// legacyElicitParams drops what the session's revision does not know:
// 2025-06-18 has no elicitation modes.
func (x *exchange) legacyElicitParams(params any) any {
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
	return mailbox.Key(x.r.Header.Get(hdrSessionID), "response", compactID(id))
}

// forwardResponse brings a legacy client's answer to a server request to
// the replica waiting for it. An error answer counts as a cancel.
func (x *exchange) forwardResponse() {
	if x.h.cfg.Mailbox == nil || x.msg.Kind != jsonrpc.Response {
		return
	}
	payload := x.msg.Result
	if payload == nil {
		payload = json.RawMessage(`{"action":"cancel"}`)
	}
	if err := x.h.cfg.Mailbox.Send(x.responseKey(x.msg.ID), payload); err != nil {
		x.h.cfg.Logger.Warn("forwarding a client response failed", "err", err)
	}
}
