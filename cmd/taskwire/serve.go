package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/node"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("taskwire serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.serveFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	level, err := cfg.logLevel()
	if err != nil {
		return err
	}
	log := telemetry.NewLogger(stderr, level)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	if err := cfg.resolve(node.HostPort(ln.Addr().String())); err != nil {
		ln.Close()
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		ln.Close()
		return err
	}
	warnOpenDirs(log, &cfg)
	sys, err := node.NewSystem(cfg.system(ln, log))
	if err != nil {
		ln.Close()
		return err
	}
	if err := sys.Start(ctx); err != nil {
		return err
	}
	if err := firstStart(ctx, sys, stdout); err != nil {
		sys.Stop(context.Background())
		return err
	}
	log.Info("taskwire serving", "endpoint", sys.Endpoint, "db", redactDSN(cfg.DB), "metrics", sys.MetricsAddr())
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-sys.Done():
		log.Error("server stopped", "err", err)
	}
	return sys.Stop(context.Background())
}

// firstStart prints the owner's one-time sign-in link to the console, and
// their token and client configuration, when this start created the
// first tenant, owner and board, once: neither is stored, so they cannot
// be shown again. Then it shows the operator secret
// when this start created it.
func firstStart(ctx context.Context, sys *node.System, out io.Writer) error {
	cfg := sys.Config()
	defer func() { printOperatorSecret(out, sys.NewOperatorSecret(), cfg.OperatorSecretFile, cfg.PublicURL) }()
	w, err := sys.Welcome(ctx)
	if err != nil {
		return err
	}
	if w == nil {
		fmt.Fprintf(out, "Taskwire is serving MCP at %s and the console at %s\n", sys.Endpoint, cfg.PublicURL)
		return nil
	}
	printWelcome(out, sys.Endpoint, cfg.DataDir, w.Tenant, w.Owner, w.Board, w.Token, w.Expires, w.SignInLink)
	return nil
}
