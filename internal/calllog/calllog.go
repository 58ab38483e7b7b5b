// Package calllog gives every log record written during one call the
// call's identity (request id, tenant, member, tool), wherever in the code
// the record is written: the front door and the worker learn these as a
// call goes on and note them in its context, and Handler adds them to each
// record logged with that context. A call can then be followed through
// both processes by its request id, and no code deep in a service has to
// pass them along.
package calllog

import (
	"context"
	"log/slog"
	"slices"
	"sync"
)

// MDRequestID is the gRPC metadata key of the request id a front door
// gives each request and sends with every call it makes for it.
const MDRequestID = "x-request-id"

// The attribute keys every record of a call carries, the same in the
// front door's and the worker's records.
const (
	KeyRequestID = "request_id"
	KeyTenant    = "tenant"
	KeyMember    = "member"
	KeyTool      = "tool"
	KeyTraceID   = "trace_id"
)

// fields are the attributes of one call, filled in as the call goes on:
// the tenant is known after authentication, the tool after the body is
// read, so they are shared through a pointer set in the context early.
type fields struct {
	mu    sync.Mutex
	attrs []slog.Attr
}

type ctxKey struct{}

// Start returns ctx with an empty set of call attributes, unless it has
// one already.
func Start(ctx context.Context) context.Context {
	if _, ok := ctx.Value(ctxKey{}).(*fields); ok {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, &fields{})
}

// Set notes attrs for every record later logged with ctx (or a context
// made from it), replacing those of the same keys. Without Start it does
// nothing.
func Set(ctx context.Context, attrs ...slog.Attr) {
	f, ok := ctx.Value(ctxKey{}).(*fields)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range attrs {
		i := slices.IndexFunc(f.attrs, func(b slog.Attr) bool { return b.Key == a.Key })
		if i >= 0 {
			f.attrs[i] = a
		} else {
			f.attrs = append(f.attrs, a)
		}
	}
}

// Attrs returns the attributes noted in ctx.
func Attrs(ctx context.Context) []slog.Attr {
	f, ok := ctx.Value(ctxKey{}).(*fields)
	if !ok {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.attrs)
}

// Handler adds the call attributes of a record's context to the record,
// except those whose keys the record or the logger already has: a record
// never holds one key twice.
type Handler struct {
	inner slog.Handler
	keys  []string // keys the logger's With added
}

// NewHandler returns a Handler that writes through inner.
func NewHandler(inner slog.Handler) *Handler { return &Handler{inner: inner} }

// Enabled reports whether inner logs at level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

// Handle adds the call attributes the record lacks, then hands it on.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	extra := Attrs(ctx)
	if len(extra) == 0 {
		return h.inner.Handle(ctx, r)
	}
	have := slices.Clone(h.keys)
	r.Attrs(func(a slog.Attr) bool {
		have = append(have, a.Key)
		return true
	})
	r = r.Clone()
	for _, a := range extra {
		if !slices.Contains(have, a.Key) {
			r.AddAttrs(a)
		}
	}
	return h.inner.Handle(ctx, r)
}

// WithAttrs remembers the keys added, so that a call attribute does not
// repeat one.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	keys := slices.Clone(h.keys)
	for _, a := range attrs {
		keys = append(keys, a.Key)
	}
	return &Handler{inner: h.inner.WithAttrs(attrs), keys: keys}
}

// WithGroup opens a group in inner; call attributes then land in it.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), keys: h.keys}
}
