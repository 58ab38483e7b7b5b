package node

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/telemetry"
)

// Go's profiles are served beside the metrics only with --pprof, and
// --pprof without an address to serve them on is refused.
func TestPprofOnlyWhenAsked(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	tel, err := telemetry.New(telemetry.Config{Service: "test"})
	if err != nil {
		t.Fatal(err)
	}
	get := func(m *sideServer, path string) (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + m.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, withPprof := range []bool{false, true} {
		m, err := serveMetrics("127.0.0.1:0", withPprof, tel, log)
		if err != nil {
			t.Fatal(err)
		}
		if code, body := get(m, "/metrics"); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
			t.Errorf("pprof %v: /metrics = %d, want 200 with the Go collector", withPprof, code)
		}
		code, body := get(m, "/debug/pprof/goroutine?debug=1")
		switch {
		case withPprof && (code != http.StatusOK || !strings.Contains(body, "goroutine profile")):
			t.Errorf("--pprof: goroutine profile = %d %.80q, want 200 with the profile", code, body)
		case !withPprof && code != http.StatusNotFound:
			t.Errorf("no --pprof: /debug/pprof/goroutine = %d, want 404", code)
		}
		m.Close()
	}
	if _, err := serveMetrics("", true, tel, log); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("--pprof without --metrics-addr: %v, want a refusal naming --metrics-addr", err)
	}
}
