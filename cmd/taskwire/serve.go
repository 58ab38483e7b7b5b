package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/services/tokens"
)

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
	if err := cfg.resolve(hostPort(ln.Addr().String())); err != nil {
		ln.Close()
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		ln.Close()
		return err
	}
	warnOpenDirs(log, &cfg)
	sys, err := startSystem(ctx, cfg, ln, log)
	if err != nil {
		return err
	}
	if err := sys.firstStart(ctx, stdout); err != nil {
		sys.Close(context.Background())
		return err
	}
	log.Info("taskwire serving", "endpoint", sys.Endpoint, "db", redactDSN(cfg.DB), "metrics", sys.metrics.Addr())
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-sys.Done():
		log.Error("server stopped", "err", err)
	}
	return sys.Close(context.Background())
}

// firstStart creates the first tenant, owner and board on an empty
// database, and prints the owner's token and client configuration once:
// the token is not stored, so it cannot be shown again.
func (s *system) firstStart(ctx context.Context, out io.Writer) error {
	res := s.first
	defer s.showOperatorSecret(out)
	if !res.Created {
		fmt.Fprintf(out, "Taskwire is serving MCP at %s\n", s.Endpoint)
		return nil
	}
	recorded, err := tokens.New(tokens.Config{Client: s.DB, MaxTTL: s.cfg.MaxTokenTTL, Logger: s.log})
	if err != nil {
		return err
	}
	token, minted, err := recorded.Create(ctx, s.Issuer, tokens.CreateRequest{
		Tenant: res.Tenant.Slug, Member: res.Owner.ID, Scopes: authz.AllScopes, Label: "first start",
	})
	if err != nil {
		return err
	}
	printWelcome(out, s.Endpoint, res.Tenant.Slug, res.Owner.Handle, res.Board.Slug, token, minted.ExpiresAt)
	return nil
}
