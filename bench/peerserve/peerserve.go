// Package peerserve runs a benchmark peer's MCP handler at /mcp until the
// process is told to stop, the same way for every peer, so that what the
// benchmark compares is the MCP library and not the HTTP setup.
package peerserve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/taskwire/taskwire/bench/taskdb"
)

// Main is a peer's main: it reads the flags every peer takes (--addr,
// default defaultAddr; --db, the SQLite file; --tenant), opens the task
// database read-only, and serves the handler build makes over it until
// told to stop. It exits the process on failure.
func Main(name, defaultAddr string, build func(*taskdb.DB) http.Handler) {
	addr := flag.String("addr", defaultAddr, "HTTP listen address")
	path := flag.String("db", "", "Taskwire SQLite file, opened read-only")
	tenant := flag.Int("tenant", 1, "tenant id whose tasks are served")
	flag.Parse()
	db, err := taskdb.Open(*path, *tenant)
	if err != nil {
		log.Fatal(err)
	}
	err = Run(name, *addr, build(db))
	db.Close()
	if err != nil {
		log.Fatal(err)
	}
}

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
