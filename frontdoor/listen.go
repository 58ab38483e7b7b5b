package frontdoor

import (
	"encoding/json"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/events"
)

// EventSource tells of changes in a tenant (events.Bus over NATS).
type EventSource interface {
	Subscribe(tenant string, fn func(events.Event)) (unsubscribe func(), err error)
}

// Shutdown ends every open subscriptions/listen stream with its result, so
// an HTTP server shutdown can complete: listen streams would otherwise stay
// open as long as their clients.
func (h *Handler) Shutdown() {
	h.closeOnce.Do(func() {
		close(h.closing)
		if h.stopNews != nil {
			h.stopNews()
		}
	})
}

// listenFilter is params.notifications of subscriptions/listen.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

type subscriptionMeta struct {
	SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
}

type ackParams struct {
	Notifications listenFilter     `json:"notifications"`
	Meta          subscriptionMeta `json:"_meta"`
}

type listChangedParams struct {
	Meta subscriptionMeta `json:"_meta"`
}

// listenResult ends a listen stream the server closes.
type listenResult struct {
	ResultType string `json:"resultType"`
	Meta       struct {
		ServerInfo     mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
		SubscriptionID json.RawMessage    `json:"io.modelcontextprotocol/subscriptionId"`
	} `json:"_meta"`
}

// listen serves subscriptions/listen: an SSE stream that starts with the
// acknowledgement of what is honoured, then carries list-change
// notifications for the caller, keep-alive comments while idle, and ends
// with the listen result when the server shuts down. The lists of tools
// (they change with the caller's role and scopes), resources and prompts
// are honoured when asked for, served, and change events reach this front
// door; resource subscriptions are not, so they are left out of the
// acknowledgement, as the protocol asks.
func (x *exchange) listen() (any, error) {
	var asked listenFilter
	if raw, ok := x.req.params["notifications"]; ok {
		if !isObject(raw) || json.Unmarshal(raw, &asked) != nil {
			return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.notifications must be an object of booleans and resourceSubscriptions")
		}
	}
	if err := x.countStream(); err != nil {
		return nil, err
	}
	honoured := listenFilter{
		ToolsListChanged:     asked.ToolsListChanged,
		ResourcesListChanged: asked.ResourcesListChanged && x.h.cfg.Resources != nil,
		PromptsListChanged:   asked.PromptsListChanged && x.h.cfg.Prompts != nil,
	}
	changes := newListChanges()
	watching := honoured.ToolsListChanged || honoured.ResourcesListChanged || honoured.PromptsListChanged
	if watching && x.h.cfg.Events != nil {
		// A stream hears its tenant's changes without calling a worker
		// again: a worker checks the token against its record first, so
		// a token re-signed with another tenant hears nothing of it.
		if err := x.checkCaller(); err != nil {
			return nil, err
		}
		want, member := honoured, x.caller.Member
		stop, err := x.h.cfg.Events.Subscribe(x.caller.Tenant, func(e events.Event) {
			if list := changedList(e, want, member); list >= 0 {
				changes.add(list)
			}
		})
		if err != nil {
			x.h.cfg.Logger.WarnContext(x.r.Context(), "listen: cannot watch list changes", "err", err)
			watching = false
		} else {
			defer stop()
		}
	} else {
		watching = false
	}
	if !watching {
		honoured = listenFilter{}
	}
	id := subscriptionMeta{SubscriptionID: x.msg.ID}
	if !x.out.notify("notifications/subscriptions/acknowledged", ackParams{Notifications: honoured, Meta: id}) {
		return nil, x.r.Context().Err()
	}
	if o := x.h.cfg.Observer; o != nil {
		o.Stream(true, +1)
		defer o.Stream(true, -1)
	}
	if watching {
		if err := x.watch(changes, id); err != nil {
			return nil, err
		}
	}
	res := listenResult{ResultType: mcp.ResultComplete}
	res.Meta.ServerInfo, res.Meta.SubscriptionID = x.h.cfg.ServerInfo, x.msg.ID
	return res, nil
}

// checkCaller has a worker check the caller (its token against its
// record, its membership), without listing its tools: a thousand streams
// opening would otherwise leave a thousand lists behind as garbage. It asks
// on a goroutine of its own: the call is deep (in one process the worker
// runs on the calling goroutine), and an idle stream must not keep the
// stack it grew.
func (x *exchange) checkCaller() error {
	done := make(chan error, 1)
	go func() {
		done <- x.h.cfg.Tools.Check(x.r.Context(), x.caller)
	}()
	return <-done
}

// watch relays changes until the client leaves (an error: nothing more is
// sent) or the server shuts down (nil: the result follows).
func (x *exchange) watch(changes *listChanges, id subscriptionMeta) error {
	tick := time.NewTicker(x.h.cfg.KeepAlive)
	defer tick.Stop()
	ctx := x.r.Context()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-x.h.closing:
			return nil
		case <-tick.C:
			x.out.keepAlive()
		case <-changes.wake:
			for _, method := range changes.take() {
				x.out.notify(method, listChangedParams{Meta: id})
			}
		}
	}
}
