// Package toolcall runs MCP tools as calls to the workers' gRPC methods: it
// turns arguments into the request message, carries the caller in metadata,
// relays the worker's progress from NATS, and turns the response (or the
// gRPC status) into a tool result.
package toolcall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/progress"
	"github.com/taskwire/taskwire/services/access"
)

// Config configures a Backend. Zero durations mean the defaults.
type Config struct {
	Catalog *catalog.Catalog
	// Conn reaches the workers.
	Conn grpc.ClientConnInterface
	// NATS carries progress from the workers; nil disables progress.
	NATS *nats.Conn
	// ID names this front door in progress subjects; it must be unique
	// among the front doors sharing a NATS server.
	ID string
	// CallTimeout bounds one tool call (default 5 minutes).
	CallTimeout time.Duration
	// ProgressGrace bounds how long a result waits for progress events the
	// worker published but NATS has not delivered yet (default 2 s).
	ProgressGrace time.Duration
	// States seals the requestState of confirmations and of the input
	// rounds workers ask for (package mrtr, under a purpose of its own);
	// front doors that share its keys accept each other's states. Needed
	// when a tool asks for confirmation or takes the client's input.
	States *sealed.Box
	// StateTTL is how long a person has to confirm, or a client to answer
	// a round (default 10 minutes).
	StateTTL time.Duration
	// PublicURL is the deployment's URL, where the console serves the
	// page of each decision a person makes for an assistant
	// (<PublicURL>/t/<tenant>/decisions/<id>). Needed when an assistant
	// calls a tool with a confirm question.
	PublicURL string
	// Events tells a call waiting for a person's decision that it was
	// made (events.DecisionsChanged); nil: the call asks the workers
	// every DecisionPoll.
	Events Subscriber
	// DecisionPoll is how often a call waiting for a decision asks the
	// workers whether it was made, events or not (default 5 s).
	DecisionPoll time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// RelayFailed counts the calls told that their progress could not all
	// be relayed, by reason; nil counts nothing.
	RelayFailed func(reason string)
	// Logger receives what the backend works around, such as a call made
	// without progress because no relay could be opened. Required.
	Logger *slog.Logger
}

// Validate reports a config New cannot work with.
func (c *Config) Validate() error {
	switch {
	case c.Catalog == nil:
		return errors.New("toolcall: no catalog")
	case c.Conn == nil:
		return errors.New("toolcall: no worker connection")
	case c.NATS != nil && c.ID == "":
		return errors.New("toolcall: progress needs a front door ID")
	case c.Logger == nil:
		return errors.New("toolcall: no logger (pass slog.New(slog.DiscardHandler) to log nothing)")
	}
	if c.States == nil {
		for _, t := range c.Catalog.Tools() {
			if t.ClientInputField != nil {
				return fmt.Errorf("toolcall: tool %s takes the client's input, whose request states need States to seal them", t.Def.Name)
			}
		}
	}
	return nil
}

// Backend lists and calls the catalogue's tools for one caller at a time.
type Backend struct {
	cfg    Config
	rounds *mrtr.Rounds
	log    *slog.Logger
}

// New returns a Backend.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = 5 * time.Minute
	}
	if cfg.StateTTL == 0 {
		cfg.StateTTL = 10 * time.Minute
	}
	if cfg.DecisionPoll == 0 {
		cfg.DecisionPoll = 5 * time.Second
	}
	if cfg.ProgressGrace == 0 {
		cfg.ProgressGrace = 2 * time.Second
	}
	rounds := &mrtr.Rounds{Box: cfg.States, TTL: cfg.StateTTL, Now: cfg.Now}
	return &Backend{cfg: cfg, rounds: rounds, log: cfg.Logger}, nil
}

// Subscriber hears a tenant's events; *events.Bus is one.
type Subscriber interface {
	Subscribe(tenant string, fn func(events.Event)) (unsubscribe func(), err error)
}

// accessTimeout bounds the GetAccess call behind one tools/list.
const accessTimeout = 30 * time.Second

// Tools returns the tools c may call now, in catalogue order: those its
// role permits (the tool's scope, and its min_role if any) and its token
// allows (by its scopes and, when it is limited to some, its toolsets).
// The role comes from the workers (AccessService.GetAccess), asked on
// every list and not cached, so a role changed in the database shows in
// the next list, as it applies to the next call.
//
// Both lists are sized up front: every tools/list and every listen stream's
// start makes one, and grown by appends they left twice their size in
// garbage (some 10 KB a list).
func (b *Backend) Tools(ctx context.Context, c identity.Caller) ([]mcp.Tool, error) {
	all := b.cfg.Catalog.Tools()
	byScope := make([]*catalog.Tool, 0, len(all))
	for _, t := range all {
		if authz.Allows(c.Scopes, t.Scope) && authz.ToolsetAllows(c.Toolsets, t.Toolset) {
			byScope = append(byScope, t)
		}
	}
	if len(byScope) == 0 {
		return nil, nil // no role can widen what the token allows
	}
	role, err := b.role(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.Tool, 0, len(byScope))
	for _, t := range byScope {
		if authz.RoleAllows(role, t.Scope) && authz.AtLeast(role, t.MinRole) {
			out = append(out, t.Def)
		}
	}
	return out, nil
}

// Check has the workers check c, as a tools list does: GetAccess
// refuses a token its record does not know or a member who left.
func (b *Backend) Check(ctx context.Context, c identity.Caller) error {
	_, err := b.access(ctx, c)
	return err
}

// role asks the workers for c's current role.
func (b *Backend) role(ctx context.Context, c identity.Caller) (string, error) {
	resp, err := b.access(ctx, c)
	if err != nil {
		return "", err
	}
	return access.RoleName(resp.GetRole()), nil
}

// isAssistant asks the workers whether c's member is an assistant.
func (b *Backend) isAssistant(ctx context.Context, c identity.Caller) (bool, error) {
	resp, err := b.access(ctx, c)
	if err != nil {
		return false, err
	}
	return resp.GetKind() == taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, nil
}

// access asks the workers what c currently is on its tenant.
func (b *Backend) access(ctx context.Context, c identity.Caller) (*taskwirev1.GetAccessResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, accessTimeout)
	defer cancel()
	resp, err := taskwirev1.NewAccessServiceClient(b.cfg.Conn).GetAccess(identity.AppendToOutgoing(ctx, c), &taskwirev1.GetAccessRequest{})
	if err != nil {
		return nil, accessFailure(err)
	}
	return resp, nil
}

// ParamHeaders returns the x-mcp-header annotations of tool name, as the
// catalogue read them from its inputSchema.
func (b *Backend) ParamHeaders(name string) []mcp.ParamHeader {
	if t, ok := b.cfg.Catalog.Lookup(name); ok {
		return t.ParamHeaders
	}
	return nil
}

// CallTool runs tool name for c. See frontdoor.ToolBackend for the meaning
// of its errors.
func (b *Backend) CallTool(ctx context.Context, c identity.Caller, call *mcp.ToolCall, report progress.Reporter) (*mcp.CallToolResult, error) {
	t, req, err := b.request(c, call)
	var ae *catalog.ArgumentsError
	if errors.As(err, &ae) {
		return argumentsResult(ae), nil
	}
	if err != nil {
		return nil, err
	}
	if taskOnly[t.FullMethod] && !call.Tasks {
		return nil, needsTasks(call.Name)
	}
	if res, err := b.fill(ctx, c, t, call, req); err != nil || res != nil {
		return res, err
	}
	if long := background[t.FullMethod]; call.Tasks && long != nil && long(req) {
		return b.startTask(ctx, c, t, call, req, &taskwirev1.StartOperationRequest{})
	}
	resp, err := t.NewResponse()
	if err != nil {
		return nil, err
	}
	if err := b.invoke(ctx, c, t, call, req, resp, report); err != nil {
		return b.failure(ctx, call.Name, err)
	}
	return b.result(c, t, call, resp)
}

// request finds the tool of call, checks that c may call it, and turns
// the arguments into its request message.
func (b *Backend) request(c identity.Caller, call *mcp.ToolCall) (*catalog.Tool, proto.Message, error) {
	name := call.Name
	t, ok := b.cfg.Catalog.Lookup(name)
	if !ok {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("Unknown tool: %s", name), Data: map[string]string{"tool": name}}
	}
	if !authz.Allows(c.Scopes, t.Scope) {
		return nil, nil, &mcp.ScopeError{Tool: name, Scope: t.Scope}
	}
	if !authz.ToolsetAllows(c.Toolsets, t.Toolset) {
		return nil, nil, toolsetError(name, t.Toolset, c.Toolsets)
	}
	req, err := t.DecodeArguments(call.Arguments)
	if errors.Is(err, catalog.ErrNotObject) {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "invalid params: " + err.Error(), Data: map[string]string{"tool": name}}
	}
	return t, req, err
}

// argumentsResult is the answer to arguments that do not fit the tool's
// inputSchema: a tool execution error the model reads and can correct
// (MCP 2026-07-28 server/tools, "Error Handling"), with the problems also
// in _meta for the client's code.
func argumentsResult(ae *catalog.ArgumentsError) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(ae.Text())}, IsError: true, Problems: ae.Problems}
}

// invoke calls the tool's worker method as c, relaying progress and log
// messages to the client while it runs.
func (b *Backend) invoke(ctx context.Context, c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, req, resp proto.Message, report progress.Reporter) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	ctx = identity.AppendToOutgoing(ctx, c)
	ctx = access.AppendBudget(ctx) // the front door's rate budget, for whoami
	ctx = traceContext(ctx, call)
	ctx = labelContext(ctx, call)

	var relay *relay
	logs := call.Log != nil && progress.Severity(call.LogLevel) >= 0
	if (report != nil || logs) && b.cfg.NATS != nil {
		var logf func(level, text string)
		if logs {
			logf = call.Log
			ctx = metadata.AppendToOutgoingContext(ctx, progress.MDLogLevel, call.LogLevel)
		}
		var err error
		relay, err = startRelay(b.cfg.NATS, b.cfg.ID, report, logf)
		if err != nil {
			// Progress is best effort: without NATS the tool still runs,
			// and the client hears at once why no progress comes.
			b.relayFailed(ctx, call, report, nil, relayUnreachable, err)
		} else {
			defer relay.stop()
			ctx = relay.outgoing(ctx)
		}
	}
	var trailer metadataMD
	err := b.cfg.Conn.Invoke(ctx, t.FullMethod, req, resp, grpc.Trailer(&trailer.MD))
	if relay != nil && err == nil && !relay.await(trailer, b.cfg.ProgressGrace) {
		why := relayLate
		if trailer.lost() > 0 {
			why = relayWorkerUnreachable
		}
		b.relayFailed(ctx, call, report, relay, why, nil)
	}
	return err
}
