// Package events carries changes that front doors must hear of at once
// but cannot poll for: a member's role or scopes changed (their tool list
// with it), or the tenant's boards changed (its resources). Whoever makes
// the change publishes on NATS; every front door with an open
// subscriptions/listen stream for that tenant hears it. Beside those, it
// shares what front doors learn about legacy sessions (session_news.go).
package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/follow"
)

// Kinds of change.
const (
	// ToolsChanged: the tools some member (or, with Member 0, every
	// member) of the tenant may use changed.
	ToolsChanged = "tools"
	// ResourcesChanged: the tenant's list of resources changed.
	ResourcesChanged = "resources"
	// PromptsChanged: the tenant's list of prompts changed.
	PromptsChanged = "prompts"
	// BoardChanged: a task of Board (a slug) changed, Ref naming it, or
	// a comment on it; Member is who changed it. Console pages showing
	// the board refresh on it; MCP streams ignore it.
	BoardChanged = "board"
	// DecisionsChanged: a decision only a person may make was asked for
	// or decided, Ref naming it. Console inboxes refresh on it; MCP
	// streams ignore it.
	DecisionsChanged = "decisions"
)

// SubjectPrefix starts the subject of each tenant's changes.
const SubjectPrefix = "taskwire.events."

// Event is one change in one tenant.
type Event struct {
	Kind   string `json:"kind"`
	Member int    `json:"member,omitempty"` // 0: every member
	Board  string `json:"board,omitempty"`  // BoardChanged: the board's slug
	Ref    string `json:"ref,omitempty"`    // a task's ref, or a decision's id
}

// ChangesCallers reports whether ev may change what a caller is or may
// do (a role change or a removal changes the member's tools): what a
// worker remembers of callers must be forgotten. Resources and prompts
// changes concern no caller.
func (ev Event) ChangesCallers() bool { return ev.Kind == ToolsChanged }

var slugRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

func subject(tenant string) (string, error) {
	if !slugRE.MatchString(tenant) {
		return "", fmt.Errorf("events: bad tenant %q", tenant)
	}
	return SubjectPrefix + tenant, nil
}

// Bus publishes and subscribes to changes over NATS, and shares session
// news (session_news.go).
type Bus struct {
	nc   *nats.Conn
	news *sessionStore

	mu    sync.Mutex
	feeds map[string]*feed // tenant → its one NATS subscription here

	followReconnects sync.Once
}

// feed is a tenant's changes, heard once from NATS and handed to every
// local subscriber: a front door holds many listen streams, and a NATS
// subscription each (a goroutine, buffers, the server's interest) was a
// good part of an idle stream's memory.
type feed struct {
	stop func()
	fns  map[*func(Event)]struct{}
}

// New returns a Bus over nc. It asks nothing of the server yet: whether
// session news can be kept in JetStream is decided by the first call
// that shares or hears session news (KeepsSessionNews), so a Bus that
// only carries tenant events, as the workers' does, never asks.
func New(nc *nats.Conn) (*Bus, error) {
	if nc == nil {
		return nil, errors.New("events: no NATS connection")
	}
	return &Bus{nc: nc, news: newSessionStore(SessionsBucket, sessionsTTL), feeds: map[string]*feed{}}, nil
}

// Publish announces ev in tenant to every front door.
func (b *Bus) Publish(tenant string, ev Event) error {
	subj, err := subject(tenant)
	if err != nil {
		return err
	}
	return publish(b.nc, subj, ev)
}

// Subscribe calls fn with each change in tenant until unsubscribe is
// called. The subscription reaches the NATS server before it returns.
// Subscribers of one tenant share one NATS subscription; fn must not
// block, since it holds up the tenant's other subscribers.
func (b *Bus) Subscribe(tenant string, fn func(Event)) (unsubscribe func(), err error) {
	subj, err := subject(tenant)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.feeds[tenant]
	if f == nil {
		f = &feed{fns: map[*func(Event)]struct{}{}}
		stop, err := subscribe(b.nc, subj, func(ev Event) bool { return ev.Kind != "" }, func(ev Event) {
			b.mu.Lock()
			fns := make([]func(Event), 0, len(f.fns))
			for fn := range f.fns {
				fns = append(fns, *fn)
			}
			b.mu.Unlock()
			for _, fn := range fns {
				fn(ev)
			}
		})
		if err != nil {
			return nil, err
		}
		f.stop = stop
		b.feeds[tenant] = f
	}
	b.followReconnects.Do(func() { follow.OnReconnect(b.nc, b.reconnected) })
	key := &fn
	f.fns[key] = struct{}{}
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			delete(f.fns, key)
			if len(f.fns) == 0 {
				f.stop()
				delete(b.feeds, tenant)
			}
		})
	}, nil
}

// ErrUnreachable is what publishing returns while the connection to NATS
// is down: the message would only wait in the client's buffer, holding up
// the call that sent it until the connection returns, and be lost if it
// did not. What follows the store (revocations, keys) reloads when its
// own connection comes back.
var ErrUnreachable = errors.New("events: the message bus is unreachable")

// missable are the changes a subscriber may have missed while the
// connection was away, told again to every tenant's subscribers when it
// returns: the lists "may have changed", and clients list again; callers
// a worker remembers are forgotten. Changes to a board or a decision are
// left out: they name what changed, which is not known here.
var missable = []Event{{Kind: ToolsChanged}, {Kind: ResourcesChanged}, {Kind: PromptsChanged}}

// reconnected hands the missable changes to every subscriber, since
// those published while the connection was away are lost.
func (b *Bus) reconnected() {
	b.mu.Lock()
	var fns []func(Event)
	for _, f := range b.feeds {
		for fn := range f.fns {
			fns = append(fns, *fn)
		}
	}
	b.mu.Unlock()
	for _, fn := range fns {
		for _, ev := range missable {
			fn(ev)
		}
	}
}

// publish sends v as JSON on subj and waits until the server has it.
func publish(nc *nats.Conn, subj string, v any) error {
	if !nc.IsConnected() {
		return ErrUnreachable
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := nc.Publish(subj, data); err != nil {
		return err
	}
	return nc.Flush()
}

// subscribe calls fn with each well-formed JSON message on subj that
// valid accepts; the subscription is in place when it returns.
func subscribe[T any](nc *nats.Conn, subj string, valid func(T) bool, fn func(T)) (func(), error) {
	sub, err := nc.Subscribe(subj, func(m *nats.Msg) {
		var v T
		if json.Unmarshal(m.Data, &v) == nil && valid(v) {
			fn(v)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := nc.Flush(); err != nil {
		sub.Unsubscribe()
		return nil, err
	}
	return func() { sub.Unsubscribe() }, nil
}
