package toolcall

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/progress"
)

// relay forwards the progress one worker publishes for one call to the
// client's reporter. It subscribes before the call starts, so no event can
// be published before anyone listens.
type relay struct {
	subject string
	sub     *nats.Subscription

	mu       sync.Mutex
	received uint32
	changed  chan struct{} // closed and replaced on every event
}

func startRelay(nc *nats.Conn, frontdoorID string, report progress.Reporter, logf func(level, text string)) (*relay, error) {
	r := &relay{
		subject: progress.SubjectPrefix + frontdoorID + "." + nuid.Next(),
		changed: make(chan struct{}),
	}
	sub, err := nc.Subscribe(r.subject, func(m *nats.Msg) {
		var ev taskwirev1.ProgressEvent
		if proto.Unmarshal(m.Data, &ev) != nil {
			return
		}
		switch {
		case ev.GetLog() != nil:
			if logf != nil {
				logf(ev.GetLog().GetLevel(), ev.GetLog().GetText())
			}
		case report != nil:
			report(ev.GetProgress(), ev.GetTotal(), ev.GetMessage())
		}
		r.mu.Lock()
		r.received = max(r.received, ev.GetSeq())
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	// The subscription must reach the server before the worker publishes.
	if err := nc.FlushTimeout(flushTimeout); err != nil {
		sub.Unsubscribe()
		return nil, err
	}
	r.sub = sub
	return r, nil
}

func (r *relay) outgoing(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, progress.MDSubject, r.subject)
}

// await waits until the events the worker says it published have arrived,
// or grace has passed: progress is best effort and never holds up a result
// for long.
func (r *relay) await(published uint32, grace time.Duration) {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		done, changed := r.received >= published, r.changed
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			return
		}
	}
}

func (r *relay) stop() { r.sub.Unsubscribe() }

// metadataMD receives a call's trailer.
type metadataMD struct{ metadata.MD }

// count is the number of progress events the worker published.
func (m metadataMD) count() uint32 {
	v := m.Get(progress.TrailerCount)
	if len(v) != 1 {
		return 0
	}
	n, err := strconv.ParseUint(v[0], 10, 32)
	if err != nil {
		return 0
	}
	return uint32(n)
}

// flushTimeout bounds the wait for NATS to confirm a subscription: while
// NATS is away the call goes ahead without progress instead of waiting.
const flushTimeout = time.Second
