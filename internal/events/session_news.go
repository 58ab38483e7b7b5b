package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// SessionsBucket is the JetStream key-value bucket that keeps what front
// doors learn about legacy sessions until the sessions would have
// expired, so that a front door that starts, or reconnects, later still
// learns it. Each fact has its own key, "<id>.ended" or "<id>.level", its
// value the JSON SessionNews: a replica ending a session never overwrites
// the level another set at the same moment, and no write reads first.
const SessionsBucket = "taskwire_sessions"

// SessionsSubject carries session news instead when the NATS server has
// no JetStream: then only the front doors listening at the time hear it.
const SessionsSubject = "taskwire.sessions"

// sessionsTTL is how long the bucket keeps an entry. News of a session is
// published while the session lives, and a session lives at most 24 h
// (sessionLifetime in frontdoor/session.go), so no entry matters longer;
// the extra hour covers clocks that disagree between machines.
const sessionsTTL = 25 * time.Hour

// jsTimeout bounds each exchange with JetStream, and how long a new
// subscriber waits for the news the bucket holds.
const jsTimeout = 10 * time.Second

// SessionNews is what one front door learned about a session, kept by the
// others until the session's id would have expired.
type SessionNews struct {
	ID       string `json:"id"`  // a hash of the session id
	Expires  int64  `json:"exp"` // unix seconds
	Ended    bool   `json:"ended,omitempty"`
	LogLevel string `json:"logLevel,omitempty"` // set by logging/setLevel
}

// sessionIDRE bounds the id hash to what a key in the bucket may hold.
var sessionIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// KeepsSessionNews reports whether session news is kept in SessionsBucket,
// where front doors that start later find it. It is false, with no error,
// when the NATS server has no JetStream: news then travels on
// SessionsSubject and reaches only the front doors listening when it is
// published, which the caller should warn of. The first of this method,
// PublishSessionNews and SubscribeSessionNews to reach the server decides
// which applies, for the life of the Bus (unless the bucket is lost: the
// next call then asks again); an error decides nothing.
func (b *Bus) KeepsSessionNews() (bool, error) {
	kv, err := b.news.bucket(b.nc)
	return kv != nil, err
}

// PublishSessionNews tells every front door about a session: those
// running now and, when the news is kept, those that start before it
// would have expired. It returns once the NATS server has it.
func (b *Bus) PublishSessionNews(n SessionNews) error {
	return b.publishSessionNews(n, true)
}

func (b *Bus) publishSessionNews(n SessionNews, retry bool) error {
	if !sessionIDRE.MatchString(n.ID) {
		return fmt.Errorf("events: bad session id hash %q", n.ID)
	}
	facts := newsFacts(n)
	if len(facts) == 0 {
		return nil // it says nothing
	}
	kv, err := b.news.bucket(b.nc)
	if err != nil {
		return err
	}
	if kv == nil {
		return publish(b.nc, SessionsSubject, n)
	}
	err = putFacts(kv, facts)
	if retry && errors.Is(err, jetstream.ErrNoStreamResponse) {
		// The bucket is gone: a server that kept it in memory restarted.
		b.news.forget(kv)
		return b.publishSessionNews(n, false)
	}
	return err
}

// SubscribeSessionNews calls fn for what any front door learned about a
// session that has not expired. When the news is kept, fn gets all of it
// before SubscribeSessionNews returns, then news as it comes.
func (b *Bus) SubscribeSessionNews(fn func(SessionNews)) (unsubscribe func(), err error) {
	kv, err := b.news.bucket(b.nc)
	if err != nil {
		return nil, err
	}
	if kv == nil {
		return subscribe(b.nc, SessionsSubject, b.news.valid, fn)
	}
	return b.watchNews(kv, fn)
}

// fact is one entry of the bucket.
type fact struct {
	key  string
	news SessionNews
}

// newsFacts splits n into its facts, one key each.
func newsFacts(n SessionNews) []fact {
	var facts []fact
	if n.Ended {
		facts = append(facts, fact{n.ID + ".ended", SessionNews{ID: n.ID, Expires: n.Expires, Ended: true}})
	}
	if n.LogLevel != "" {
		facts = append(facts, fact{n.ID + ".level", SessionNews{ID: n.ID, Expires: n.Expires, LogLevel: n.LogLevel}})
	}
	return facts
}

func putFacts(kv jetstream.KeyValue, facts []fact) error {
	ctx, cancel := context.WithTimeout(context.Background(), jsTimeout)
	defer cancel()
	for _, f := range facts {
		data, err := json.Marshal(f.news)
		if err != nil {
			return err
		}
		if _, err := kv.Put(ctx, f.key, data); err != nil {
			return fmt.Errorf("events: keeping session news: %w", err)
		}
	}
	return nil
}

// sessionStore is where session news is kept: a bucket, or nowhere once
// the server was found to have no JetStream.
type sessionStore struct {
	name string
	ttl  time.Duration

	mu      sync.Mutex
	decided bool
	kv      jetstream.KeyValue // nil when decided: no JetStream
}

func newSessionStore(name string, ttl time.Duration) *sessionStore {
	return &sessionStore{name: name, ttl: ttl}
}

// bucket returns the bucket, made if missing, or nil when the server has
// no JetStream. An error (JetStream there but refusing, or too slow)
// decides nothing: the next call asks again.
func (s *sessionStore) bucket(nc *nats.Conn) (jetstream.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.decided {
		return s.kv, nil
	}
	kv, err := openBucket(nc, s.name, s.ttl)
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
		s.decided = true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("events: session news bucket %s: %w", s.name, err)
	}
	s.decided, s.kv = true, kv
	return kv, nil
}

// forget drops kv, found gone, so that the next call of bucket decides
// again and makes the bucket anew.
func (s *sessionStore) forget(kv jetstream.KeyValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kv == kv {
		s.decided, s.kv = false, nil
	}
}

// valid reports whether n says something about a session not expired.
func (s *sessionStore) valid(n SessionNews) bool {
	return sessionIDRE.MatchString(n.ID) && (n.Ended || n.LogLevel != "") && n.Expires >= time.Now().Unix()
}

// openBucket makes the bucket, or opens it as it is when it exists with
// other settings (made by an operator, or by another release). Memory
// storage is enough: the news matters for a day at most, and the front
// doors running keep their own copy of it.
func openBucket(nc *nats.Conn, name string, ttl time.Duration) (jetstream.KeyValue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), jsTimeout)
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      name,
		Description: "What Taskwire front doors learned about legacy MCP sessions",
		History:     1,
		TTL:         ttl,
		Storage:     jetstream.MemoryStorage,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		return js.KeyValue(ctx, name)
	}
	return kv, err
}
