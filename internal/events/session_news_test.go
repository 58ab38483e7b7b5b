package events

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
)

// jetStreamServers are the NATS servers with JetStream the session news
// tests run on: one embedded, and the one TASKWIRE_TEST_NATS names.
var jetStreamServers = []struct {
	name  string
	start func(testing.TB) string
}{
	{"embedded", natstest.Start},
	{"external", natstest.External},
}

// newsBuses returns n buses over url sharing a bucket of their own, which
// keeps entries for ttl and is deleted when the test ends: tests that
// share a server see nothing of each other.
func newsBuses(t *testing.T, url string, ttl time.Duration, n int) []*Bus {
	t.Helper()
	store := newSessionStore("taskwire_sessions_test_"+nuid.Next(), ttl)
	nc := natstest.Connect(t, url)
	t.Cleanup(func() {
		js, _ := jetstream.New(nc)
		err := js.DeleteKeyValue(context.Background(), store.name)
		if err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
			t.Errorf("deleting bucket %s: %v", store.name, err)
		}
	})
	var buses []*Bus
	for range n {
		b := bus(t, url)
		b.news = newSessionStore(store.name, store.ttl)
		buses = append(buses, b)
	}
	return buses
}

// listen subscribes b to session news; what it hears goes to the channel.
func listen(t *testing.T, b *Bus) chan SessionNews {
	t.Helper()
	heard := make(chan SessionNews, 16)
	stop, err := b.SubscribeSessionNews(func(n SessionNews) { heard <- n })
	if err != nil {
		t.Fatalf("SubscribeSessionNews: %v", err)
	}
	t.Cleanup(stop)
	return heard
}

// drain returns what is in heard now, without waiting.
func drain(heard chan SessionNews) []SessionNews {
	var got []SessionNews
	for {
		select {
		case n := <-heard:
			got = append(got, n)
		default:
			return got
		}
	}
}

// next waits up to d for what heard hears next.
func next(t *testing.T, heard chan SessionNews, d time.Duration) SessionNews {
	t.Helper()
	select {
	case n := <-heard:
		return n
	case <-time.After(d):
		t.Fatalf("heard nothing within %v", d)
		return SessionNews{}
	}
}

func mustPublish(t *testing.T, b *Bus, n SessionNews) {
	t.Helper()
	if err := b.PublishSessionNews(n); err != nil {
		t.Fatalf("PublishSessionNews(%+v): %v", n, err)
	}
}

// TestSessionNewsKeptForLaterFrontDoors: a front door that subscribes
// after news was published hears all of it that is still live before
// SubscribeSessionNews returns (an ended session and its level as two
// facts, the latest level of a session only), then news as it comes.
func TestSessionNewsKeptForLaterFrontDoors(t *testing.T) {
	for _, srv := range jetStreamServers {
		t.Run(srv.name, func(t *testing.T) {
			buses := newsBuses(t, srv.start(t), sessionsTTL, 2)
			pub, late := buses[0], buses[1]
			exp := time.Now().Add(time.Hour).Unix()
			mustPublish(t, pub, SessionNews{ID: "a", Expires: exp, Ended: true, LogLevel: "debug"})
			mustPublish(t, pub, SessionNews{ID: "b", Expires: exp, LogLevel: "info"})
			mustPublish(t, pub, SessionNews{ID: "b", Expires: exp, LogLevel: "error"})
			mustPublish(t, pub, SessionNews{ID: "c", Expires: exp})                                              // says nothing
			mustPublish(t, pub, SessionNews{ID: "d", Expires: time.Now().Add(-time.Second).Unix(), Ended: true}) // expired
			if kept, err := late.KeepsSessionNews(); !kept || err != nil {
				t.Fatalf("KeepsSessionNews() = %v, %v; want true, nil", kept, err)
			}

			heard := listen(t, late)
			want := []SessionNews{
				{ID: "a", Expires: exp, Ended: true},
				{ID: "a", Expires: exp, LogLevel: "debug"},
				{ID: "b", Expires: exp, LogLevel: "error"},
			}
			if diff := cmp.Diff(want, drain(heard)); diff != "" {
				t.Errorf("news heard at subscribe time (-want +got):\n%s", diff)
			}

			mustPublish(t, pub, SessionNews{ID: "e", Expires: exp, Ended: true})
			if got, want := next(t, heard, 10*time.Second), (SessionNews{ID: "e", Expires: exp, Ended: true}); got != want {
				t.Errorf("news heard after subscribing = %+v, want %+v", got, want)
			}
			if err := pub.PublishSessionNews(SessionNews{ID: "bad.id>", Expires: exp, Ended: true}); err == nil {
				t.Error("PublishSessionNews with a malformed id succeeded")
			}
		})
	}
}

// TestSessionNewsReachesEveryFrontDoor: news published while front doors
// listen reaches each of them.
func TestSessionNewsReachesEveryFrontDoor(t *testing.T) {
	for _, srv := range jetStreamServers {
		t.Run(srv.name, func(t *testing.T) {
			buses := newsBuses(t, srv.start(t), sessionsTTL, 3)
			heardA, heardB := listen(t, buses[1]), listen(t, buses[2])
			want := SessionNews{ID: "h1", Expires: time.Now().Add(time.Hour).Unix(), LogLevel: "warning"}
			mustPublish(t, buses[0], want)
			for name, heard := range map[string]chan SessionNews{"a": heardA, "b": heardB} {
				if got := next(t, heard, 10*time.Second); got != want {
					t.Errorf("front door %s heard %+v, want %+v", name, got, want)
				}
			}
		})
	}
}

// TestSessionNewsExpireFromBucket: the bucket drops an entry after its
// TTL, so a front door that subscribes later never hears it.
func TestSessionNewsExpireFromBucket(t *testing.T) {
	t.Parallel() // it waits for the TTL
	for _, srv := range jetStreamServers {
		t.Run(srv.name, func(t *testing.T) {
			const ttl = 2 * time.Second
			buses := newsBuses(t, srv.start(t), ttl, 2)
			pub, late := buses[0], buses[1]
			exp := time.Now().Add(time.Hour).Unix()
			mustPublish(t, pub, SessionNews{ID: "stale", Expires: exp, Ended: true})
			kv, err := pub.news.bucket(pub.nc)
			if err != nil {
				t.Fatal(err)
			}
			poll.Until(t, 10*ttl, "the bucket to drop stale.ended", func() bool {
				_, err := kv.Get(context.Background(), "stale.ended")
				return errors.Is(err, jetstream.ErrKeyNotFound)
			})
			fresh := SessionNews{ID: "fresh", Expires: exp, Ended: true}
			mustPublish(t, pub, fresh)

			if diff := cmp.Diff([]SessionNews{fresh}, drain(listen(t, late))); diff != "" {
				t.Errorf("news heard at subscribe time (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSessionNewsWithoutJetStream: on a NATS server without JetStream the
// news travels on SessionsSubject: front doors listening hear it, one
// that subscribes later does not hear what came before.
func TestSessionNewsWithoutJetStream(t *testing.T) {
	url := natstest.StartCore(t)
	pub, late := bus(t, url), bus(t, url)
	if kept, err := pub.KeepsSessionNews(); kept || err != nil {
		t.Fatalf("KeepsSessionNews() = %v, %v; want false, nil", kept, err)
	}
	exp := time.Now().Add(time.Hour).Unix()
	mustPublish(t, pub, SessionNews{ID: "before", Expires: exp, Ended: true})
	heard := listen(t, late)
	after := SessionNews{ID: "after", Expires: exp, LogLevel: "notice"}
	mustPublish(t, pub, SessionNews{ID: "old", Expires: time.Now().Add(-time.Second).Unix(), Ended: true})
	mustPublish(t, pub, after)
	if got := next(t, heard, 10*time.Second); got != after {
		t.Errorf("heard %+v first, want %+v (news from before subscribing, or expired, is not heard)", got, after)
	}
}

// TestSessionNewsBucketLost: when the bucket goes (as it does when a
// server that keeps it in memory restarts), publishing makes it again and
// a front door already listening watches the new one, once its watcher
// notices the loss (missed heartbeats: some seconds).
func TestSessionNewsBucketLost(t *testing.T) {
	t.Parallel()
	buses := newsBuses(t, natstest.Start(t), sessionsTTL, 2)
	pub, sub := buses[0], buses[1]
	heard := listen(t, sub)
	exp := time.Now().Add(time.Hour).Unix()
	js, _ := jetstream.New(pub.nc)
	if err := js.DeleteKeyValue(context.Background(), pub.news.name); err != nil {
		t.Fatal(err)
	}
	want := SessionNews{ID: "again", Expires: exp, Ended: true}
	mustPublish(t, pub, want)
	if got := next(t, heard, 60*time.Second); got != want {
		t.Errorf("heard %+v after the bucket was made again, want %+v", got, want)
	}
}
