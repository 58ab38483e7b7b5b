package content

import (
	"cmp"
	"context"
	"errors"
	"time"

	"google.golang.org/grpc"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// RemoteConfig configures a Remote.
type RemoteConfig struct {
	// Conn reaches a worker serving mcpv1.ContentService. Required.
	Conn grpc.ClientConnInterface
	// Rounds seals what a prompt that asks for the client's input needs
	// back on the retry, and opens it then. Required: whether a worker's
	// prompts ask is up to the worker.
	Rounds *mrtr.Rounds
	// Timeout bounds each gRPC call (default 30 s).
	Timeout time.Duration
}

// Validate reports a config NewRemote cannot work with.
func (c RemoteConfig) Validate() error {
	switch {
	case c.Conn == nil:
		return errors.New("content: RemoteConfig.Conn is required")
	case c.Rounds == nil:
		return errors.New("content: RemoteConfig.Rounds is required")
	}
	return nil
}

// Remote serves the resources, prompts and completion of a worker's
// ContentService, which speaks MCP's shapes already: Remote only maps them
// to the front door's types and its errors to the front door's terms. It
// is safe for concurrent use.
type Remote struct {
	svc     mcpv1.ContentServiceClient
	rounds  *mrtr.Rounds
	timeout time.Duration
}

// NewRemote returns a Remote for cfg.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Remote{
		svc:     mcpv1.NewContentServiceClient(cfg.Conn),
		rounds:  cfg.Rounds,
		timeout: cmp.Or(cfg.Timeout, defaultTimeout),
	}, nil
}

// Resources returns the worker's direct resources.
func (r *Remote) Resources(ctx context.Context, c identity.Caller) ([]mcp.Resource, error) {
	resp, err := r.listResources(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.Resource, 0, len(resp.GetResources()))
	for _, x := range resp.GetResources() {
		out = append(out, mcp.Resource{
			URI: x.GetUri(), Name: x.GetName(), Title: x.GetTitle(),
			Description: x.GetDescription(), MIMEType: x.GetMimeType(),
		})
	}
	return out, nil
}

// ResourceTemplates returns the worker's resource templates.
func (r *Remote) ResourceTemplates(ctx context.Context, c identity.Caller) ([]mcp.ResourceTemplate, error) {
	resp, err := r.listResources(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.ResourceTemplate, 0, len(resp.GetTemplates()))
	for _, x := range resp.GetTemplates() {
		out = append(out, mcp.ResourceTemplate{
			URITemplate: x.GetUriTemplate(), Name: x.GetName(), Title: x.GetTitle(),
			Description: x.GetDescription(), MIMEType: x.GetMimeType(),
		})
	}
	return out, nil
}

func (r *Remote) listResources(ctx context.Context, c identity.Caller) (*mcpv1.ListResourcesResponse, error) {
	ctx, cancel := as(ctx, c, r.timeout)
	defer cancel()
	resp, err := r.svc.ListResources(ctx, &mcpv1.ListResourcesRequest{})
	if err != nil {
		return nil, translate(err, "ListResources", invalidParams)
	}
	return resp, nil
}

// ReadResource returns the contents of uri; NOT_FOUND (and
// INVALID_ARGUMENT, a URI the worker cannot parse) is a
// *mcp.ResourceNotFoundError.
func (r *Remote) ReadResource(ctx context.Context, c identity.Caller, uri string) ([]mcp.ResourceContents, error) {
	ctx, cancel := as(ctx, c, r.timeout)
	defer cancel()
	resp, err := r.svc.ReadResource(ctx, &mcpv1.ReadResourceRequest{Uri: uri})
	if err != nil {
		return nil, translate(err, "ReadResource", func(string) error { return &mcp.ResourceNotFoundError{URI: uri} })
	}
	out := make([]mcp.ResourceContents, 0, len(resp.GetContents()))
	for _, x := range resp.GetContents() {
		e := mcp.ResourceFromProto(x) // the bytes in base64, as a resource block has them
		out = append(out, mcp.ResourceContents{URI: cmp.Or(e.URI, uri), MIMEType: e.MIMEType, Text: e.Text, Blob: e.Blob})
	}
	return out, nil
}

// Complete asks the worker for values; the front door caps them.
func (r *Remote) Complete(ctx context.Context, c identity.Caller, req *mcp.CompleteRequest) (*mcp.Completion, error) {
	ctx, cancel := as(ctx, c, r.timeout)
	defer cancel()
	resp, err := r.svc.Complete(ctx, &mcpv1.CompleteRequest{
		RefType: req.RefType, RefName: req.RefName, Argument: req.Argument, Value: req.Value, Context: req.Context,
	})
	if err != nil {
		return nil, translate(err, "Complete", invalidParams)
	}
	values := resp.GetValues()
	return &mcp.Completion{Values: values, Total: max(int(resp.GetTotal()), len(values)), HasMore: resp.GetHasMore()}, nil
}
