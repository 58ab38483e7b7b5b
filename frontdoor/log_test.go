package frontdoor

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestOneLogRecordPerRequest checks that each request leaves exactly one
// record saying what happened, and none holds a token or tool arguments.
func TestOneLogRecordPerRequest(t *testing.T) {
	const secretArg = "SECRET-TASK-TEXT"
	badToken := newCall(t, 1, "server/discover", nil, nil)
	badToken.Header.Set("Authorization", "Bearer forged-token-value")
	tests := []struct {
		name  string
		req   *http.Request
		level slog.Level
		want  map[string]string
	}{
		{"discover", newCall(t, 1, "server/discover", nil, nil), slog.LevelInfo,
			map[string]string{"method": "server/discover", "outcome": "ok", "status": "200", "tenant": "acme", "member": "1"}},
		{"tool call", newCall(t, 2, "tools/call", map[string]any{"name": "tasks_create", "arguments": map[string]any{"title": secretArg}}, nil), slog.LevelInfo,
			map[string]string{"method": "tools/call", "tool": "tasks_create", "outcome": "ok", "tenant": "acme"}},
		{"tool error", newCall(t, 3, "tools/call", map[string]any{"name": "tasks_get"}, nil), slog.LevelInfo,
			map[string]string{"tool": "tasks_get", "outcome": "tool_error"}},
		{"progress", newCall(t, 4, "tools/call", map[string]any{"name": "tasks_import"}, map[string]any{"progressToken": 1}), slog.LevelInfo,
			map[string]string{"tool": "tasks_import", "outcome": "ok", "progress": "3"}},
		{"internal", newCall(t, 5, "tools/call", map[string]any{"name": "tasks_export"}, nil), slog.LevelError,
			map[string]string{"tool": "tasks_export", "outcome": "internal", "code": "-32603", "status": "200",
				"error": "export bucket s3://secret-bucket unreachable (ref f66eb6d2)"}}, // the ref of testdata/tools_call_internal_error.txtar
		{"bad token", badToken, slog.LevelInfo,
			map[string]string{"method": "POST", "outcome": "refused", "status": "401", "code": "-32600", "error": "the token is malformed (not a JWT): send the whole token, as it was shown"}},
		{"unknown method", newCall(t, 6, "tasks/frob", nil, nil), slog.LevelInfo,
			map[string]string{"method": "tasks/frob", "outcome": "refused", "status": "404", "code": "-32601"}},
	}
	for _, tt := range tests {
		sink := newLogSink()
		h := newTestHandler(t, nil, slog.New(sink))
		serve(h, tt.req)
		if n := len(sink.records); n != 1 {
			t.Errorf("%s: %d log records, want 1", tt.name, n)
			continue
		}
		r := <-sink.records
		got := attrs(r)
		if r.Level != tt.level {
			t.Errorf("%s: level %v, want %v", tt.name, r.Level, tt.level)
		}
		for k, want := range tt.want {
			if got[k] != want {
				t.Errorf("%s: %s = %q, want %q (record %v)", tt.name, k, got[k], want, got)
			}
		}
		if _, ok := got["duration"]; !ok {
			t.Errorf("%s: no duration in %v", tt.name, got)
		}
		for k, v := range got {
			if strings.Contains(v, "token-") || strings.Contains(v, secretArg) {
				t.Errorf("%s: %s = %q leaks a token or an argument", tt.name, k, v)
			}
		}
	}
}
