package toolcall

import (
	"context"
	"errors"
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
	report  progress.Reporter

	mu       sync.Mutex
	received uint32        // events that arrived
	last     float64       // the progress of the last progress event passed on
	total    float64       // and its total
	changed  chan struct{} // closed and replaced on every event
}

// errUnreachable: this front door's NATS connection is down, so no
// subscription can reach the server now.
var errUnreachable = errors.New("toolcall: NATS is unreachable")

func startRelay(nc *nats.Conn, frontdoorID string, report progress.Reporter, logf func(level, text string)) (*relay, error) {
	if !nc.IsConnected() {
		// Subscribing would only queue the subscription and wait out the
		// flush for nothing.
		return nil, errUnreachable
	}
	r := &relay{
		subject: progress.SubjectPrefix + frontdoorID + "." + nuid.Next(),
		report:  report,
		changed: make(chan struct{}),
	}
	sub, err := nc.Subscribe(r.subject, func(m *nats.Msg) { r.deliver(m, logf) })
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

// deliver passes one event on to the client and counts it.
func (r *relay) deliver(m *nats.Msg, logf func(level, text string)) {
	var ev taskwirev1.ProgressEvent
	if proto.Unmarshal(m.Data, &ev) != nil {
		return
	}
	// NATS hands one subscription's messages over one at a time, so the
	// client gets them in order and last follows what it got.
	switch {
	case ev.GetLog() != nil:
		if logf != nil {
			logf(ev.GetLog().GetLevel(), ev.GetLog().GetText())
		}
	case r.report != nil:
		r.report(ev.GetProgress(), ev.GetTotal(), ev.GetMessage())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ev.GetLog() == nil {
		r.last, r.total = max(r.last, ev.GetProgress()), ev.GetTotal()
	}
	r.received++
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *relay) outgoing(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, progress.MDSubject, r.subject)
}

// await waits until the events the worker says it published have arrived,
// or grace has passed: progress is best effort and never holds up a result
// for long. It reports whether every event the worker numbered arrived.
func (r *relay) await(t metadataMD, grace time.Duration) bool {
	numbered, lost := t.count(), t.lost()
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		received, changed := r.received, r.changed
		r.mu.Unlock()
		if received+lost >= numbered {
			return lost == 0
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// after is the progress to report after the last one passed on, for a
// notification that must rise above it: the total when it is known and
// not reached (the call is done), else one more.
func (r *relay) after() (progress, total float64) {
	if r == nil {
		return 0, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.total > r.last {
		return r.total, r.total
	}
	return r.last + 1, 0
}

func (r *relay) stop() { r.sub.Unsubscribe() }

// metadataMD receives a call's trailer.
type metadataMD struct{ metadata.MD }

// count is the number of progress events the worker numbered.
func (m metadataMD) count() uint32 { return m.number(progress.TrailerCount) }

// lost is the number of those the worker could not publish.
func (m metadataMD) lost() uint32 { return m.number(progress.TrailerLost) }

// number is the trailer key's value, 0 when missing or malformed.
func (m metadataMD) number(key string) uint32 {
	v := m.Get(key)
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
