package worker

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/identity"
)

// Auditor writes audit events (services/audit.Store is one). The worker
// calls Record from one goroutine of its own, never on a call's path, with
// a context bounded by auditWriteTimeout.
type Auditor interface {
	Record(ctx context.Context, e audit.Event) error
}

// BatchAuditor is an Auditor that can also write several events at once
// (services/audit.Store is one: one transaction for them all). With one,
// the worker writes whatever has queued up together, up to
// maxAuditBatch, which under load costs one commit per batch instead of
// one per call. Events whose tenant does not exist are skipped.
type BatchAuditor interface {
	Auditor
	RecordAll(ctx context.Context, events []audit.Event) (skipped int, err error)
}

// MDSessionLabel is the metadata key of the label a client gave its
// session (the front door forwards it from the HTTP header
// Taskwire-Session-Label). It is the client's word, never trusted: the
// audit log keeps at most maxSessionLabel printable characters of it.
const MDSessionLabel = identity.MDSessionLabel

// DefaultAuditQueue bounds the events waiting to be written when
// Config.AuditQueue is 0.
const DefaultAuditQueue = 1024

const (
	auditWriteTimeout = 5 * time.Second  // one event's write
	auditFlushTimeout = 5 * time.Second  // writing what is left when the worker stops
	auditWarnEvery    = 10 * time.Second // at most one warning about dropped events per period
	maxSessionLabel   = 100              // characters
	maxTargets        = 20
	maxTargetLen      = 100 // bytes of one target's value
	maxAuditError     = 200 // bytes of a failure's message
	maxAuditBatch     = 256 // events written in one transaction
	auditLinger       = 20 * time.Millisecond
)

// auditSkipped are named calls the audit log leaves out, because they are
// the machinery of other requests rather than something a member did:
// AccessService.GetAccess is called by every tools/list and returns only
// the caller's own membership. Every other call with a caller is recorded,
// reads included (tools, resources, prompts, completions, admin calls),
// whether it succeeded, failed or was refused. Health checks and
// Config.Unnamed methods (e.g. TokenService.ListRevocations) have no
// caller and are never recorded, nor are calls the identity step refuses
// (no trustworthy caller, or a revoked token). What a front door refuses
// itself (unknown tools, bad arguments, a scope it checks first, rate
// limits) never reaches a worker, so is not in the log either.
var auditSkipped = map[string]bool{
	taskwirev1.AccessService_GetAccess_FullMethodName: true,
}

// auditCall records each named call as it ends, through Config.Auditor.
// It sits after identity and before scope and role, so refusals by those
// steps are recorded too (outcome "refused"); requireRole notes the
// caller's Access for it when it reads one, and the Auditor looks up the
// rest for calls refused before.
//
// Recording is asynchronous, into a bounded queue per worker that one
// goroutine writes from: a call never waits for the database on the
// audit's behalf, which matters because the write would otherwise add to
// every call, reads included, and on SQLite would queue behind any long
// write transaction. The price: an event can be lost, when the queue is
// full (it is dropped, counted and warned about), when its write fails
// (logged), or when the process dies before writing it; Stop writes what
// is queued, for up to auditFlushTimeout.
func (s *Server) auditCall(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.audit == nil || s.callerless(info.FullMethod) || auditSkipped[info.FullMethod] {
		return handler(ctx, req)
	}
	start := time.Now()
	note := &accessNote{}
	ctx = context.WithValue(ctx, accessNoteKey{}, note)
	ended := false
	defer func() {
		if !ended { // the handler panicked; recoverPanic answers Internal
			s.audit.add(ctx, func() audit.Event {
				return s.audit.event(ctx, req, info.FullMethod, start, note, status.Error(codes.Internal, "the call failed"))
			})
		}
	}()
	resp, err := handler(ctx, req)
	ended = true
	s.audit.add(ctx, func() audit.Event { return s.audit.event(ctx, req, info.FullMethod, start, note, err) })
	return resp, err
}

// accessNote carries the Access requireRole read back up to auditCall.
type accessNote struct {
	a  access.Access
	ok bool
}

type accessNoteKey struct{}

// noteAccess tells auditCall, if it is recording this call, whom
// requireRole found.
func noteAccess(ctx context.Context, a access.Access) {
	if n, ok := ctx.Value(accessNoteKey{}).(*accessNote); ok {
		n.a, n.ok = a, true
	}
}

// auditLog is a worker's queue of audit events and the goroutine writing
// them.
type auditLog struct {
	auditor  Auditor
	log      *slog.Logger
	queue    chan audit.Event
	stopping chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	dropped  atomic.Int64
	lastWarn atomic.Int64     // unix nanoseconds of the last warning about drops
	tools    sync.Map         // full method → tool name ("" for none)
	now      func() time.Time // for tests
}

func newAuditLog(a Auditor, size int, log *slog.Logger) *auditLog {
	if a == nil {
		return nil
	}
	if size == 0 {
		size = DefaultAuditQueue
	}
	l := &auditLog{
		auditor: a, log: log, queue: make(chan audit.Event, size),
		stopping: make(chan struct{}), done: make(chan struct{}), now: time.Now,
	}
	go l.run()
	return l
}

// add queues the event build returns, never blocking and never failing
// the call: a full queue drops the event, and a panic building it is
// logged.
func (l *auditLog) add(ctx context.Context, build func() audit.Event) {
	defer func() {
		if r := recover(); r != nil {
			l.log.ErrorContext(ctx, "worker: cannot build an audit event", "panic", r)
		}
	}()
	e := build()
	if e.Tenant == "" && e.TenantID == 0 {
		l.log.DebugContext(ctx, "worker: call not audited: it names no tenant", "method", e.Method)
		return
	}
	select {
	case l.queue <- e:
	default:
		n := l.dropped.Add(1)
		last := l.lastWarn.Load()
		if now := l.now().UnixNano(); now-last >= int64(auditWarnEvery) && l.lastWarn.CompareAndSwap(last, now) {
			l.log.WarnContext(ctx, "worker: audit queue full; audit events dropped", "dropped_total", n, "queue", cap(l.queue))
		}
	}
}

// run writes queued events until stop, then what is left: one at a time,
// or with a BatchAuditor, each event with all that queued behind it.
func (l *auditLog) run() {
	defer close(l.done)
	for {
		select {
		case e := <-l.queue:
			l.writeFrom(context.Background(), e, auditLinger)
		case <-l.stopping:
			l.flush()
			return
		}
	}
}

// flush writes what is queued, in batches where it can, within
// auditFlushTimeout.
func (l *auditLog) flush() {
	ctx, cancel := context.WithTimeout(context.Background(), auditFlushTimeout)
	defer cancel()
	for ctx.Err() == nil {
		select {
		case e := <-l.queue:
			l.writeFrom(ctx, e, 0)
		default:
			return
		}
	}
	if n := len(l.queue); n > 0 {
		l.log.Warn("worker: stopped before writing every audit event", "lost", n)
	}
}

func (l *auditLog) write(ctx context.Context, e audit.Event) {
	ctx, cancel := context.WithTimeout(ctx, auditWriteTimeout)
	defer cancel()
	switch err := l.auditor.Record(ctx, e); {
	case err == nil:
	case domainerr.KindOf(err) == domainerr.NotFound:
		// An operator named a tenant that does not exist: no log to write to.
		l.log.Debug("worker: call not audited: no such tenant", "method", e.Method, "tenant", e.Tenant)
	default:
		l.log.Warn("worker: audit event not recorded", "method", e.Method, "tenant", e.Tenant, "err", err)
	}
}

// writeFrom writes first: alone, or with a BatchAuditor together with
// the events queued behind it and those that queue within linger.
func (l *auditLog) writeFrom(ctx context.Context, first audit.Event, linger time.Duration) {
	if b, ok := l.auditor.(BatchAuditor); ok {
		l.writeAll(ctx, b, l.gather(first, linger))
		return
	}
	l.write(ctx, first)
}

// gather returns first with the events that queue behind it within
// linger (auditLinger while running, none when flushing), up to
// maxAuditBatch: under load, a commit for many calls instead of a few (a
// commit is most of a write's cost), at the price of an event reaching
// the log that much later. It sleeps through linger rather than take each
// event as it comes: waking the writer for every call cost more than the
// event's insert. When a full batch is already waiting it does not wait at
// all, so a busy writer writes batch after batch.
func (l *auditLog) gather(first audit.Event, linger time.Duration) []audit.Event {
	if linger > 0 && len(l.queue) < maxAuditBatch-1 {
		timer := time.NewTimer(linger)
		select {
		case <-timer.C:
		case <-l.stopping:
			timer.Stop()
		}
	}
	batch := []audit.Event{first}
	for len(batch) < maxAuditBatch {
		select {
		case e := <-l.queue:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

func (l *auditLog) writeAll(ctx context.Context, b BatchAuditor, events []audit.Event) {
	ctx, cancel := context.WithTimeout(ctx, auditWriteTimeout)
	defer cancel()
	skipped, err := b.RecordAll(ctx, events)
	if err != nil {
		l.log.Warn("worker: audit events not recorded", "count", len(events), "err", err)
		return
	}
	if skipped > 0 {
		l.log.Debug("worker: calls not audited: no such tenant", "count", skipped)
	}
}

// stop writes what is queued (within auditFlushTimeout) and ends the
// writer. Events of calls that end later are not written.
func (l *auditLog) stop() {
	if l == nil {
		return
	}
	l.stopOnce.Do(func() { close(l.stopping) })
	<-l.done
}

// event describes one call that ended with err.
func (l *auditLog) event(ctx context.Context, req any, method string, start time.Time, note *accessNote, err error) audit.Event {
	e := audit.Event{
		OccurredAt:   l.now(),
		Method:       method,
		Tool:         l.tool(method),
		Targets:      targets(req),
		Outcome:      audit.OutcomeOf(err),
		TraceID:      traceID(ctx),
		SessionLabel: sessionLabel(ctx),
		Duration:     time.Since(start),
	}
	if err != nil {
		e.Error = clip(status.Convert(err).Message(), maxAuditError)
	}
	switch c, ok := identity.FromContext(ctx); {
	case identity.IsOperator(ctx):
		// An operator acts on the tenant the request names.
		e.Kind, e.Tenant = audit.KindOperator, operatorTenant(req)
	case ok:
		e.Tenant, e.MemberID, e.TokenID = c.Tenant, c.Member, c.TokenID
	}
	if note.ok && note.a.Tenant == e.Tenant && note.a.MemberID == e.MemberID {
		a := note.a
		e.TenantID, e.Member, e.Kind, e.Sponsor = a.TenantID, a.Handle, a.Kind, a.Sponsor
	}
	return e
}

// tool returns the MCP tool name of a method, "" if it is not a tool.
func (l *auditLog) tool(method string) string {
	if v, ok := l.tools.Load(method); ok {
		return v.(string)
	}
	name := ""
	full := strings.Replace(strings.TrimPrefix(method, "/"), "/", ".", 1)
	if d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(full)); err == nil {
		if md, ok := d.(protoreflect.MethodDescriptor); ok {
			t, _ := proto.GetExtension(md.Options(), mcpv1.E_Tool).(*mcpv1.Tool)
			name = t.GetName()
		}
	}
	l.tools.Store(method, name)
	return name
}

// targetFields are the request fields whose values name what a call acts
// on, as field=value in declaration order: string fields (or repeated
// strings) of these names only, so no free text (titles, notes, comments)
// ever reaches the log.
var targetFields = map[protoreflect.Name]bool{
	"ref": true, "refs": true, "board": true, "member": true, "handle": true, "jti": true, "tenant": true,
}

// targets returns what req names, at most maxTargets values.
func targets(req any) []string {
	m, ok := req.(proto.Message)
	if !ok {
		return nil
	}
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	var out []string
	add := func(name protoreflect.Name, v string) {
		if v = printable(v, maxTargetLen); v != "" && len(out) < maxTargets {
			out = append(out, string(name)+"="+v)
		}
	}
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !targetFields[fd.Name()] || fd.Kind() != protoreflect.StringKind || fd.IsMap() {
			continue
		}
		if !fd.IsList() {
			add(fd.Name(), r.Get(fd).String())
			continue
		}
		list := r.Get(fd).List()
		for j := 0; j < list.Len() && len(out) < maxTargets; j++ {
			add(fd.Name(), list.Get(j).String())
		}
	}
	return out
}

// operatorTenant is the tenant an operator's request names: its tenant
// field, or the slug of a tenant being created.
func operatorTenant(req any) string {
	m, ok := req.(proto.Message)
	if !ok {
		return ""
	}
	r := m.ProtoReflect()
	for _, name := range []protoreflect.Name{"tenant", "slug"} {
		if fd := r.Descriptor().Fields().ByName(name); fd != nil && fd.Kind() == protoreflect.StringKind && !fd.IsList() {
			if v := r.Get(fd).String(); v != "" {
				return clip(v, maxTargetLen)
			}
		}
	}
	return ""
}

// sessionLabel returns the session label of the call's metadata: one
// value, valid UTF-8 of printable characters only, else none; at most
// maxSessionLabel characters of it.
func sessionLabel(ctx context.Context) string {
	v := metadata.ValueFromIncomingContext(ctx, MDSessionLabel)
	if len(v) != 1 || !utf8.ValidString(v[0]) {
		return ""
	}
	n := 0
	for i, r := range v[0] {
		if !unicode.IsPrint(r) {
			return ""
		}
		if n++; n > maxSessionLabel {
			return v[0][:i]
		}
	}
	return v[0]
}

// printable returns s without control characters, cut to at most n bytes.
func printable(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	return clip(s, n)
}

// clip cuts s to at most n bytes on a rune boundary, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
