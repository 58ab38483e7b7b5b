package frontdoor

import (
	"container/list"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// bucketSet holds token buckets by key, for the rate limits and the
// throttle of unauthenticated failures. Buckets are made when first
// needed; a bucket that has refilled allows exactly what a new one would,
// so it is dropped, and memory follows the subjects active lately. A cap
// (least recently used goes first) bounds it against many subjects at
// once.
type bucketSet struct {
	now func() time.Time
	max int

	mu      sync.Mutex
	buckets map[string]*list.Element // values are *bucket
	lru     list.List                // front: used last
}

type bucket struct {
	key string
	lim *rate.Limiter
}

// newBucketSet returns a set of at most max buckets (0:
// DefaultMaxBuckets) on clock now (nil: time.Now).
func newBucketSet(max int, now func() time.Time) bucketSet {
	if max == 0 {
		max = DefaultMaxBuckets
	}
	if now == nil {
		now = time.Now
	}
	return bucketSet{now: now, max: max, buckets: map[string]*list.Element{}}
}

// bucket returns the bucket of key, made with limit l if there is none.
// Callers hold mu.
func (s *bucketSet) bucket(key string, l RateLimit) *bucket {
	if e, ok := s.buckets[key]; ok {
		s.lru.MoveToFront(e)
		return e.Value.(*bucket)
	}
	if len(s.buckets) >= s.max {
		// The least recently used bucket goes even if not full: its
		// subject gets a full bucket again, which errs on the lenient
		// side.
		s.drop(s.lru.Back())
	}
	b := &bucket{key: key, lim: rate.NewLimiter(rate.Limit(l.PerSecond), l.Burst)}
	s.buckets[key] = s.lru.PushFront(b)
	return b
}

// existing returns the bucket of key if there is one. Callers hold mu.
func (s *bucketSet) existing(key string) (*bucket, bool) {
	e, ok := s.buckets[key]
	if !ok {
		return nil, false
	}
	return e.Value.(*bucket), true
}

// trim drops the least recently used buckets while they are full: a full
// bucket allows exactly what a new one would, so dropping it changes
// nothing. Callers hold mu.
func (s *bucketSet) trim(now time.Time) {
	for e := s.lru.Back(); e != nil && full(e.Value.(*bucket).lim, now); e = s.lru.Back() {
		s.drop(e)
	}
}

// drop forgets a bucket. Callers hold mu.
func (s *bucketSet) drop(e *list.Element) {
	delete(s.buckets, e.Value.(*bucket).key)
	s.lru.Remove(e)
}

func full(lim *rate.Limiter, now time.Time) bool {
	return lim.TokensAt(now) >= float64(lim.Burst())
}
