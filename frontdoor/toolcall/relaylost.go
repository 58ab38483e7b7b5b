package toolcall

import (
	"context"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/progress"
)

// relayFailure is why some of a call's progress (or log messages) could
// not reach the client; its value is the reason the metric counts.
type relayFailure string

const (
	// relayUnreachable: this front door's NATS connection was down, so
	// it could not listen for the call's progress.
	relayUnreachable relayFailure = "unreachable"
	// relayWorkerUnreachable: the worker's NATS connection was down when
	// it had progress to send.
	relayWorkerUnreachable relayFailure = "worker_unreachable"
	// relayLate: events the worker sent had not arrived when the result
	// was ready and the grace had passed.
	relayLate relayFailure = "late"
)

// text is what the client is told.
func (f relayFailure) text() string {
	why := "the message bus is unreachable"
	if f == relayLate {
		why = "some updates did not arrive in time"
	}
	return "progress for this call could not be relayed: " + why + "; the result is unaffected"
}

// relayFailed tells the client of call that progress or log messages it
// asked for could not all be relayed, rather than leave it to wonder, and
// counts it. MCP allows notifications/message only at or above the level
// the request (or, in the legacy era, the session) set, so the warning
// goes that way only then; a client that sent a progressToken gets a
// progress notification carrying the sentence, rising above the last one
// r passed on (r is nil when no relay was opened).
func (b *Backend) relayFailed(ctx context.Context, call *mcp.ToolCall, report progress.Reporter, r *relay, why relayFailure, err error) {
	b.log.WarnContext(ctx, "toolcall: progress not relayed; told the client", "tool", call.Name, "reason", string(why), "err", err)
	if b.cfg.RelayFailed != nil {
		b.cfg.RelayFailed(string(why))
	}
	if call.Log != nil && logsAt(call.LogLevel, "warning") {
		call.Log("warning", why.text())
	}
	if report != nil {
		done, total := r.after()
		report(done, total, why.text())
	}
}

// logsAt reports whether a client that asked for messages at level wants
// those at want.
func logsAt(level, want string) bool {
	l := progress.Severity(level)
	return l >= 0 && progress.Severity(want) >= l
}
