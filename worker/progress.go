package worker

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/progress"
)

// flushTimeout bounds the wait for NATS to acknowledge a call's events.
const flushTimeout = 5 * time.Second

// reportProgress serves calls whose metadata names a progress subject: it
// puts a Reporter publishing there into the context, and when the handler
// returns it flushes NATS, so the events reach the server before the
// response leaves, and sets the trailer counting them. Without NATS the
// reports are dropped and the count is 0.
func (s *Server) reportProgress(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	subjects := metadata.ValueFromIncomingContext(ctx, progress.MDSubject)
	if len(subjects) == 0 {
		return handler(ctx, req)
	}
	if len(subjects) > 1 || !validSubject(subjects[0]) {
		return nil, status.Errorf(codes.InvalidArgument,
			"progress subject must be one NATS subject starting with %q, without wildcards", progress.SubjectPrefix)
	}
	p := &publisher{nc: s.cfg.NATS, subject: subjects[0], log: s.log.With("method", info.FullMethod), minLevel: -1}
	ctx = progress.NewContext(ctx, p.report)
	if levels := metadata.ValueFromIncomingContext(ctx, progress.MDLogLevel); len(levels) == 1 && progress.Severity(levels[0]) >= 0 {
		p.minLevel = progress.Severity(levels[0])
		ctx = progress.NewLogContext(ctx, p.logf)
	}
	resp, err := handler(ctx, req)
	n, lost := p.close()
	trailer := metadata.Pairs(progress.TrailerCount, strconv.Itoa(n), progress.TrailerLost, strconv.Itoa(lost))
	if err := grpc.SetTrailer(ctx, trailer); err != nil {
		s.log.Warn("worker: set progress trailer", "method", info.FullMethod, "err", err)
	}
	return resp, err
}

// validSubject reports whether subj is a progress subject one front door
// could have subscribed to: the prefix, then tokens, no wildcards.
func validSubject(subj string) bool {
	rest, ok := strings.CutPrefix(subj, progress.SubjectPrefix)
	if !ok || rest == "" || strings.ContainsAny(subj, "*> \t\r\n") {
		return false
	}
	for tok := range strings.SplitSeq(rest, ".") {
		if tok == "" {
			return false
		}
	}
	return true
}

// publisher publishes one call's progress. Reports may come from several
// goroutines of the handler, and late ones after it returned; closed drops
// those so the count in the trailer stays exact.
type publisher struct {
	nc      *nats.Conn
	subject string
	log     *slog.Logger

	minLevel int // the least severe level to send; -1 sends no messages

	mu       sync.Mutex
	seq      uint32 // events numbered, published or lost
	lost     int    // events not published: NATS was unreachable
	reported bool   // a progress event went out; last is its progress
	last     float64
	closed   bool
}

// report is the call's progress.Reporter. It drops a report that does not
// rise above the previous one, as MCP requires progress to increase.
func (p *publisher) report(done, total float64, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.nc == nil || math.IsNaN(done) || (p.reported && done <= p.last) {
		return
	}
	if p.publish(&taskwirev1.ProgressEvent{Progress: done, Total: total, Message: message}) {
		p.reported, p.last = true, done
	}
}

// logf is the call's progress.LogFunc: it sends messages at or above the
// level the client asked for.
func (p *publisher) logf(level, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.nc == nil || progress.Severity(level) < p.minLevel {
		return
	}
	p.publish(&taskwirev1.ProgressEvent{Log: &taskwirev1.LogMessage{Level: level, Text: text}})
}

// publish numbers ev and publishes it. While NATS is unreachable the
// event is counted lost instead: buffered, it would reach the front door
// after the call ended, and the flush at the end would hold up the result
// until the connection returned. Callers hold mu.
func (p *publisher) publish(ev *taskwirev1.ProgressEvent) bool {
	p.seq++
	ev.Seq = p.seq
	if !p.nc.IsConnected() {
		p.lost++
		return true // as the client's progress, it happened
	}
	data, err := proto.Marshal(ev)
	if err == nil {
		err = p.nc.Publish(p.subject, data)
	}
	if err != nil {
		p.log.Warn("worker: publish progress", "err", err)
		p.lost++
	}
	return true
}

// close stops further reports, flushes what was published, and returns
// how many events were numbered and how many of them were lost.
func (p *publisher) close() (n, lost int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if int(p.seq) > p.lost && p.nc.IsConnected() {
		if err := p.nc.FlushTimeout(flushTimeout); err != nil {
			p.log.Warn("worker: flush progress", "err", err)
		}
	}
	return int(p.seq), p.lost
}
