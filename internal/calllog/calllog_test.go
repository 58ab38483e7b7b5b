package calllog_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/calllog"
)

// TestHandlerAddsCallAttrsOnce: a record logged with a call's context gets
// the attributes noted so far, the latest value of each, and none that the
// record or the logger already has.
func TestHandlerAddsCallAttrsOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(calllog.NewHandler(slog.NewJSONHandler(&buf, nil))).With("tool", "from_logger")
	ctx := calllog.Start(context.Background())
	calllog.Set(ctx, slog.String("request_id", "r1"), slog.String("tenant", "old"))
	calllog.Set(ctx, slog.String("tenant", "acme"), slog.String("tool", "tasks_get"))
	log.InfoContext(ctx, "deep in a service", "request_id", "own")
	got := buf.String()
	for _, want := range []string{`"tenant":"acme"`, `"request_id":"own"`, `"tool":"from_logger"`} {
		if !strings.Contains(got, want) {
			t.Errorf("record %s lacks %s", got, want)
		}
	}
	for _, key := range []string{`"request_id"`, `"tool"`, `"tenant"`} {
		if n := strings.Count(got, key); n != 1 {
			t.Errorf("record %s has %s %d times, want once", got, key, n)
		}
	}
	buf.Reset()
	log.Info("no call")
	if strings.Contains(buf.String(), "tenant") {
		t.Errorf("record without a call context = %s, want no call attributes", buf.String())
	}
}
