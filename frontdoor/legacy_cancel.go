package frontdoor

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mailbox"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// Older clients cancel a call by POSTing notifications/cancelled, which any
// replica may receive, while the call runs on the replica holding its
// stream. The holder opens a mailbox for the call, keyed by the session and
// the request id; the receiver sends to that key.

// callKey names a call of this request's session by its request id.
func (x *exchange) callKey(id json.RawMessage) string {
	return mailbox.Key(x.r.Header.Get(mcp.HeaderSessionID), compactID(id))
}

// compactID spells a JSON-RPC id one way, whatever spacing the client used.
func compactID(id json.RawMessage) string {
	var compact bytes.Buffer
	if json.Compact(&compact, id) != nil {
		return string(id)
	}
	return compact.String()
}

// cancellable returns the context of a legacy call, cancelled when the
// client sends notifications/cancelled for it to any replica. stop
// releases the mailbox.
func (x *exchange) cancellable() (context.Context, func()) {
	ctx, cancel := context.WithCancel(x.r.Context())
	if x.h.cfg.Mailbox == nil {
		return ctx, cancel
	}
	box, err := x.h.cfg.Mailbox.Open(x.callKey(x.msg.ID))
	if err != nil {
		x.h.cfg.Logger.WarnContext(x.r.Context(), "legacy cancellation unavailable for this call", "err", err)
		return ctx, cancel
	}
	go func() {
		select {
		case <-box.C:
			x.cancelled.Store(true)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(); box.Close() }
}

// forwardCancel sends a legacy notifications/cancelled to the replica
// running the call it names. Unknown, finished or malformed cancellations
// are ignored, as the protocol asks.
func (x *exchange) forwardCancel() {
	if x.h.cfg.Mailbox == nil || x.msg.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(x.msg.Params, &p) != nil || !jsonrpc.ValidID(p.RequestID) {
		return
	}
	if err := x.h.cfg.Mailbox.Send(x.callKey(p.RequestID), []byte("cancel")); err != nil {
		x.h.cfg.Logger.WarnContext(x.r.Context(), "forwarding a cancellation failed", "err", err)
	}
}
