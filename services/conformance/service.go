// Package conformance serves the fixtures of the MCP conformance suite:
// the tools of ConformanceService and the resources, prompts and
// completions of taskwire.mcp.v1.ContentService that the suite calls by
// name. It exists so the suite can exercise the real path (front door,
// gRPC, worker interceptors, NATS) and is served only where a deployment
// enables it. Nothing here reads or writes a board; the only effect any
// call has is test_trigger_tool_change's announcement.
package conformance

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/events"
)

// Publisher announces a change to the front doors listening for the
// tenant's changes. *events.Bus is one.
type Publisher interface {
	Publish(tenant string, ev events.Event) error
}

// Config holds what a Service needs.
type Config struct {
	Events Publisher // required: where test_trigger_tool_change announces
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	if c.Events == nil {
		return errors.New("conformance: Config.Events is nil")
	}
	return nil
}

// Service implements conformancev1.ConformanceServiceServer and
// mcpv1.ContentServiceServer.
type Service struct {
	conformancev1.UnimplementedConformanceServiceServer
	mcpv1.UnimplementedContentServiceServer
	events Publisher
}

var (
	_ conformancev1.ConformanceServiceServer = (*Service)(nil)
	_ mcpv1.ContentServiceServer             = (*Service)(nil)
)

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Service{events: cfg.Events}, nil
}

// Register adds both services to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	conformancev1.RegisterConformanceServiceServer(r, s)
	mcpv1.RegisterContentServiceServer(r, s)
}

// stepPause is how long the logging and progress fixtures wait between
// steps, as the suite's reference server does, so that each message
// leaves before the next.
const stepPause = 50 * time.Millisecond

// pause waits d, or less if ctx ends first, and then reports why ctx
// ended.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
