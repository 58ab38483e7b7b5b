// Command taskwire-bridge connects an MCP client that launches its servers
// as local processes (stdio) to a Taskwire server reached over Streamable
// HTTP. It reads one JSON-RPC message per line from standard input, posts
// each to TASKWIRE_URL with TASKWIRE_TOKEN, and writes replies, progress
// and listen notifications to standard output, one message per line.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command, apart from the process: it returns the exit
// code. A configuration without URL or token does not stop it: every
// request then gets an error saying what to set, which the person sees in
// their assistant.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, level, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0 // the usage it asked for is on stdout
	}
	if err != nil {
		fmt.Fprintln(stderr, "taskwire-bridge:", err)
		return 2
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("app", "taskwire-bridge")
	if cfg.err = cfg.validate(); cfg.err != nil {
		cfg.Logger.Error("not configured; every request will get this error", "err", cfg.err)
	} else {
		cfg.Logger.Info("relaying stdio", "url", cfg.URL)
	}
	newBridge(cfg, stdout).run(ctx, stdin)
	return 0
}
