package frontdoor

import (
	"encoding/json"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/services/events"
)

// EventSource tells of changes in a tenant (events.Bus over NATS).
type EventSource interface {
	Subscribe(tenant string, fn func(events.Event)) (unsubscribe func(), err error)
}

// MetaSubscriptionID tags every message of a listen stream with the listen
// request's id.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

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
// with the listen result when the server shuts down. Only the tools list
// is honoured: it changes with the caller's role and scopes. Prompts and
// resources are not watched (yet), so they are left out of the
// acknowledgement, as the protocol asks.
func (x *exchange) listen() (any, error) {
	var asked listenFilter
	if raw, ok := x.req.params["notifications"]; ok {
		if !isObject(raw) || json.Unmarshal(raw, &asked) != nil {
			return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.notifications must be an object of booleans and resourceSubscriptions")
		}
	}
	var honoured listenFilter
	changes := make(chan events.Event, 16)
	if asked.ToolsListChanged && x.h.cfg.Events != nil {
		stop, err := x.h.cfg.Events.Subscribe(x.caller.Tenant, func(e events.Event) {
			select {
			case changes <- e:
			default: // one pending notice says all a client needs: re-list
			}
		})
		if err != nil {
			x.h.cfg.Logger.Warn("listen: cannot watch tool changes", "err", err)
		} else {
			defer stop()
			honoured.ToolsListChanged = true
		}
	}
	id := subscriptionMeta{SubscriptionID: x.msg.ID}
	if !x.out.notify("notifications/subscriptions/acknowledged", ackParams{Notifications: honoured, Meta: id}) {
		return nil, x.r.Context().Err()
	}
	if honoured.ToolsListChanged {
		if err := x.watch(changes, id); err != nil {
			return nil, err
		}
	}
	res := listenResult{ResultType: mcp.ResultComplete}
	res.Meta.ServerInfo, res.Meta.SubscriptionID = x.h.cfg.ServerInfo, x.msg.ID
	return res, nil
}

// watch relays changes until the client leaves (an error: nothing more is
// sent) or the server shuts down (nil: the result follows).
func (x *exchange) watch(changes <-chan events.Event, id subscriptionMeta) error {
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
		case e := <-changes:
			if e.Kind == events.ToolsChanged && (e.Member == 0 || e.Member == x.caller.Member) {
				x.out.notify("notifications/tools/list_changed", listChangedParams{Meta: id})
			}
		}
	}
}
