// Package peerserve runs a benchmark peer's MCP handler at /mcp until the
// process is told to stop, the same way for every peer, so that what the
// benchmark compares is the MCP library and not the HTTP setup.
package peerserve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Run serves h at http://addr/mcp until SIGINT or SIGTERM, then shuts down
// within 5 s. name is said once on standard error when serving starts.
func Run(name, addr string, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	fmt.Fprintf(os.Stderr, "%s serving MCP at http://%s/mcp\n", name, addr)
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
