package frontdoor

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/events"
)

// SessionNews shares what front doors learn about legacy sessions with the
// other replicas (events.Bus over NATS): that a client ended its session
// (DELETE), or set its logging level.
type SessionNews interface {
	PublishSessionNews(events.SessionNews) error
	SubscribeSessionNews(func(events.SessionNews)) (func(), error)
}

// sessionBook remembers, per legacy session, what its sealed id cannot
// say because it was issued before: that the client ended it, and the
// logging level it set. Entries live until the id would have expired
// anyway. SessionNews replays what is still live to a replica that starts
// later (a JetStream key-value bucket); over a NATS server without
// JetStream such a replica does not know of earlier news, and treats the
// session as never ended, with no level set.
type sessionBook struct {
	mu      sync.Mutex
	entries map[string]sessionEntry // id hash → what we know
	now     func() time.Time
}

type sessionEntry struct {
	expires int64 // unix seconds
	ended   bool
	level   string
}

func sessionKey(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(sum[:16])
}

// learn records n, keeping what is already known and not contradicted.
func (b *sessionBook) learn(n events.SessionNews) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now().Unix()
	for k, e := range b.entries { // the book only holds unexpired ids
		if e.expires < now {
			delete(b.entries, k)
		}
	}
	if n.Expires < now {
		return
	}
	e := b.entries[n.ID]
	e.expires = n.Expires
	e.ended = e.ended || n.Ended
	if n.LogLevel != "" {
		e.level = n.LogLevel
	}
	b.entries[n.ID] = e
}

func (b *sessionBook) lookup(key string) sessionEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.entries[key]
}

// tell records news of the request's session, here and, through
// SessionNews, at every replica.
func (x *exchange) tell(n events.SessionNews) {
	n.ID, n.Expires = sessionKey(x.r.Header.Get(mcp.HeaderSessionID)), x.ses.Expires
	x.h.sessionBook.learn(n)
	if x.h.cfg.SessionNews != nil {
		if err := x.h.cfg.SessionNews.PublishSessionNews(n); err != nil {
			x.h.cfg.Logger.WarnContext(x.r.Context(), "sharing news of a session failed", "err", err)
		}
	}
}

// sessionLevel is the logging level the request's session set, or "".
func (x *exchange) sessionLevel() string {
	return x.h.sessionBook.lookup(sessionKey(x.r.Header.Get(mcp.HeaderSessionID))).level
}
