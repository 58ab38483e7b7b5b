// Package events carries changes that front doors must hear of at once
// but cannot poll for: a member's role or scopes changed (their tool list
// with it), or the tenant's boards changed (its resources). Whoever makes
// the change publishes on NATS; every front door with an open
// subscriptions/listen stream for that tenant hears it.
package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/nats-io/nats.go"
)

// Kinds of change.
const (
	// ToolsChanged: the tools some member (or, with Member 0, every
	// member) of the tenant may use changed.
	ToolsChanged = "tools"
	// ResourcesChanged: the tenant's list of resources changed.
	ResourcesChanged = "resources"
)

// SubjectPrefix starts the subject of each tenant's changes.
const SubjectPrefix = "taskwire.events."

// Event is one change in one tenant.
type Event struct {
	Kind   string `json:"kind"`
	Member int    `json:"member,omitempty"` // 0: every member
}

var slugRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

func subject(tenant string) (string, error) {
	if !slugRE.MatchString(tenant) {
		return "", fmt.Errorf("events: bad tenant %q", tenant)
	}
	return SubjectPrefix + tenant, nil
}

// Bus publishes and subscribes to changes over NATS.
type Bus struct {
	nc *nats.Conn
}

// New returns a Bus over nc.
func New(nc *nats.Conn) (*Bus, error) {
	if nc == nil {
		return nil, errors.New("events: no NATS connection")
	}
	return &Bus{nc: nc}, nil
}

// Publish announces ev in tenant to every front door.
func (b *Bus) Publish(tenant string, ev Event) error {
	subj, err := subject(tenant)
	if err != nil {
		return err
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if err := b.nc.Publish(subj, data); err != nil {
		return err
	}
	return b.nc.Flush()
}

// Subscribe calls fn with each change in tenant until unsubscribe is
// called. The subscription reaches the NATS server before it returns.
func (b *Bus) Subscribe(tenant string, fn func(Event)) (unsubscribe func(), err error) {
	subj, err := subject(tenant)
	if err != nil {
		return nil, err
	}
	sub, err := b.nc.Subscribe(subj, func(m *nats.Msg) {
		var ev Event
		if json.Unmarshal(m.Data, &ev) == nil && ev.Kind != "" {
			fn(ev)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := b.nc.Flush(); err != nil {
		sub.Unsubscribe()
		return nil, err
	}
	return func() { sub.Unsubscribe() }, nil
}

// SessionsEndedSubject carries the ids (hashed) of legacy sessions their
// clients ended, to every front door.
const SessionsEndedSubject = "taskwire.sessions.ended"

// SessionEnded names an ended session until its id would have expired.
type SessionEnded struct {
	ID      string `json:"id"`  // a hash of the session id
	Expires int64  `json:"exp"` // unix seconds
}

// PublishSessionEnded tells every front door that a session ended.
func (b *Bus) PublishSessionEnded(e SessionEnded) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := b.nc.Publish(SessionsEndedSubject, data); err != nil {
		return err
	}
	return b.nc.Flush()
}

// SubscribeSessionsEnded calls fn for each session any front door ended.
func (b *Bus) SubscribeSessionsEnded(fn func(SessionEnded)) (unsubscribe func(), err error) {
	sub, err := b.nc.Subscribe(SessionsEndedSubject, func(m *nats.Msg) {
		var e SessionEnded
		if json.Unmarshal(m.Data, &e) == nil && e.ID != "" {
			fn(e)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := b.nc.Flush(); err != nil {
		sub.Unsubscribe()
		return nil, err
	}
	return func() { sub.Unsubscribe() }, nil
}
