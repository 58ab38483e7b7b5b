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
	"github.com/taskwire/taskwire/services/progress"
)

// flushTimeout bounds the wait for NATS to acknowledge a call's events.
const flushTimeout = 5 * time.Second

// reportProgress serves calls whose metadata names a progress subject: it
// puts a Reporter publishing there into the context, and when the handler
// returns it flushes NATS, so the events reach the server before the
// response leaves, and sets the trailer counting them. Without NATS the
// reports are dropped and the count is 0.
func (s *Server) reportProgress(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	subjects := md.Get(progress.MDSubject)
	if len(subjects) == 0 {
		return handler(ctx, req)
	}
	if len(subjects) > 1 || !validSubject(subjects[0]) {
		return nil, status.Errorf(codes.InvalidArgument,
			"progress subject must be one NATS subject starting with %q, without wildcards", progress.SubjectPrefix)
	}
	p := &publisher{nc: s.cfg.NATS, subject: subjects[0], log: s.log.With("method", info.FullMethod)}
	resp, err := handler(progress.NewContext(ctx, p.report), req)
	n := p.close()
	if err := grpc.SetTrailer(ctx, metadata.Pairs(progress.TrailerCount, strconv.Itoa(n))); err != nil {
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

	mu     sync.Mutex
	seq    uint32
	last   float64
	closed bool
}

// report is the call's progress.Reporter. It drops a report that does not
// rise above the previous one, as MCP requires progress to increase.
func (p *publisher) report(done, total float64, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.nc == nil || math.IsNaN(done) || (p.seq > 0 && done <= p.last) {
		return
	}
	ev := &taskwirev1.ProgressEvent{Progress: done, Total: total, Message: message, Seq: p.seq + 1}
	data, err := proto.Marshal(ev)
	if err == nil {
		err = p.nc.Publish(p.subject, data)
	}
	if err != nil {
		p.log.Warn("worker: publish progress", "err", err)
		return
	}
	p.seq, p.last = ev.Seq, done
}

// close stops further reports, flushes what was published, and returns
// how many events were published.
func (p *publisher) close() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.seq > 0 {
		if err := p.nc.FlushTimeout(flushTimeout); err != nil {
			p.log.Warn("worker: flush progress", "err", err)
		}
	}
	return int(p.seq)
}
