package node

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// probeTimeout bounds a readiness check, so a probe answers before an
// orchestrator's own timeout even when a dependency hangs.
const probeTimeout = 2 * time.Second

// probes answers an orchestrator's probes in front of next. /healthz
// (liveness) is 200 whenever the process serves HTTP at all: restarting
// it would not help a missing dependency. /readyz (readiness) is 200 only
// while ready reports nil, and 503 with the reason otherwise, so a load
// balancer sends nothing to a process that cannot serve or is shutting
// down.
func probes(ready func(context.Context) error, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !answerProbe(w, r, ready) {
			next.ServeHTTP(w, r)
		}
	})
}

// answerProbe answers r if it is a probe, and reports whether it was.
func answerProbe(w http.ResponseWriter, r *http.Request, ready func(context.Context) error) bool {
	switch r.URL.Path {
	case "/healthz":
		probeAnswer(w, nil)
	case "/readyz":
		ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
		defer cancel()
		probeAnswer(w, ready(ctx))
	default:
		return false
	}
	return true
}

func probeAnswer(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "not ready: %v\n", err)
		return
	}
	fmt.Fprintln(w, "ok")
}
