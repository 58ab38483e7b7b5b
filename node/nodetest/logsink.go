package nodetest

import (
	"context"
	"log/slog"
	"sync"
)

// LogSink is a slog.Handler that keeps log records, so tests can wait for
// the worker to report that a call ended.
type LogSink struct {
	mu      sync.Mutex
	records []map[string]any
}

// Enabled keeps every level.
func (l *LogSink) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs drops the attributes: records are matched on their own.
func (l *LogSink) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup drops the group, as WithAttrs does.
func (l *LogSink) WithGroup(string) slog.Handler { return l }

// Handle keeps r's message, level and attributes as strings.
func (l *LogSink) Handle(_ context.Context, r slog.Record) error {
	rec := map[string]any{"msg": r.Message, "level": r.Level.String()}
	r.Attrs(func(a slog.Attr) bool {
		rec[a.Key] = a.Value.String()
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, rec)
	l.mu.Unlock()
	return nil
}

// Has reports whether some record has every key/value of want.
func (l *LogSink) Has(want map[string]string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, r := range l.records {
		for k, v := range want {
			if r[k] != v {
				continue next
			}
		}
		return true
	}
	return false
}

// Records returns a copy of the records kept so far.
func (l *LogSink) Records() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.records...)
}
