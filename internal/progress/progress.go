// Package progress lets long operations report how far they are without
// knowing where the report goes: the worker puts a Reporter into the context
// of a call whose client asked for progress, and the services call Report.
package progress

import "context"

// Reporter receives progress of one call. done rises with each report.
type Reporter func(done, total float64, message string)

type ctxKey struct{}

// NewContext returns ctx carrying r.
func NewContext(ctx context.Context, r Reporter) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// Report sends a progress report if ctx carries a Reporter, and does nothing
// otherwise.
func Report(ctx context.Context, done, total float64, message string) {
	if r, ok := ctx.Value(ctxKey{}).(Reporter); ok && r != nil {
		r(done, total, message)
	}
}

// Wire names shared by the worker, which publishes progress, and the front
// door, which subscribes to it.
const (
	// MDSubject is the gRPC metadata key naming the NATS subject on which the
	// worker publishes a call's progress (taskwirev1.ProgressEvent, protobuf).
	// Without it the worker reports nothing.
	MDSubject = "x-taskwire-progress-subject"
	// TrailerCount is the gRPC trailer key carrying how many progress events
	// the worker numbered for the call, so the front door can wait for the
	// last of them before it sends the result.
	TrailerCount = "x-taskwire-progress-count"
	// TrailerLost is the gRPC trailer key carrying how many of those
	// events the worker could not publish (NATS was unreachable): the
	// front door waits for the others only, and tells the client that
	// progress was lost.
	TrailerLost = "x-taskwire-progress-lost"
	// SubjectPrefix starts every progress subject:
	// SubjectPrefix + "<frontdoor id>.<call id>".
	SubjectPrefix = "taskwire.progress."
)

// MDLogLevel is the gRPC metadata key carrying the lowest MCP logging level
// the client asked for; without it the worker sends no log messages.
const MDLogLevel = "x-taskwire-log-level"

// Levels are the MCP logging levels, least severe first.
var Levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Severity returns the rank of level in Levels, or -1 for an unknown level.
func Severity(level string) int {
	for i, l := range Levels {
		if l == level {
			return i
		}
	}
	return -1
}

// LogFunc receives the log messages of one call.
type LogFunc func(level, text string)

type logKey struct{}

// NewLogContext returns ctx carrying f.
func NewLogContext(ctx context.Context, f LogFunc) context.Context {
	return context.WithValue(ctx, logKey{}, f)
}

// Log sends a message about the call to its client if the client asked
// for messages of this level, and does nothing otherwise. Never put
// secrets, tokens or task text in it.
func Log(ctx context.Context, level, text string) {
	if f, ok := ctx.Value(logKey{}).(LogFunc); ok && f != nil {
		f(level, text)
	}
}
