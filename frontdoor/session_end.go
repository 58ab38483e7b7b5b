package frontdoor

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/taskwire/taskwire/services/events"
)

// SessionEnds shares ended legacy sessions between front doors
// (events.Bus over NATS).
type SessionEnds interface {
	PublishSessionEnded(events.SessionEnded) error
	SubscribeSessionsEnded(func(events.SessionEnded)) (func(), error)
}

// ended remembers sessions their clients ended with DELETE, until the ids
// would have expired anyway: a sealed id cannot be unsealed, so ending it
// means refusing it everywhere. A replica that starts later does not know
// of earlier ends; the ids stay refused by the replicas that heard.
type ended struct {
	mu  sync.Mutex
	ids map[string]int64 // id hash → expiry, unix seconds
	now func() time.Time
}

func endedKey(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(sum[:16])
}

func (e *ended) add(key string, expires int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now().Unix()
	for k, exp := range e.ids { // the list only holds unexpired ids
		if exp < now {
			delete(e.ids, k)
		}
	}
	if expires >= now {
		e.ids[key] = expires
	}
}

func (e *ended) has(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.ids[key]
	return ok
}

// endSession records that the request's session ended, here and, through
// SessionEnds, at every replica.
func (x *exchange) endSession() {
	key := endedKey(x.r.Header.Get(hdrSessionID))
	x.h.ended.add(key, x.ses.Expires)
	if x.h.cfg.SessionEnds != nil {
		if err := x.h.cfg.SessionEnds.PublishSessionEnded(events.SessionEnded{ID: key, Expires: x.ses.Expires}); err != nil {
			x.h.cfg.Logger.Warn("sharing a session's end failed", "err", err)
		}
	}
}
