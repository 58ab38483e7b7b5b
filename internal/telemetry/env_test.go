package telemetry_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/toolcall"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/services/board"
	"github.com/taskwire/taskwire/worker"
)

// testToken is the bearer token of the test's caller: it must never reach
// a log.
const testToken = "eyJhbGciOiJFZERTQSJ9.secret-token-value.c2lnbmF0dXJl"

// env is a front door and a worker of one process, as `serve` runs them:
// the board on SQLite, gRPC in memory, every telemetry hook in place, one
// telemetry for both, as in that process.
type env struct {
	tel     *telemetry.Telemetry
	handler http.Handler
}

type verifier map[string]identity.Caller

func (v verifier) Verify(_ context.Context, raw string) (identity.Caller, error) {
	if c, ok := v[raw]; ok {
		return c, nil
	}
	return identity.Caller{}, errors.New("unknown token")
}

// newEnv starts the env; tel's logs go to log.
func newEnv(t *testing.T, tel *telemetry.Telemetry, log *slog.Logger) *env {
	t.Helper()
	client, owner := openDB(t, tel)
	conn := startWorker(t, tel, client, log)
	cat, err := catalog.New(taskwirev1.SourceDescriptor, taskwirev1.ToolServices...)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range cat.Tools() {
		names = append(names, tool.Def.Name)
	}
	tools, err := toolcall.New(toolcall.Config{Catalog: cat, Conn: conn, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	caller := identity.Caller{Tenant: "acme", Member: owner, Scopes: authz.AllScopes, TokenID: "jti-1"}
	fd, err := frontdoor.New(frontdoor.Config{
		Endpoint:    "http://127.0.0.1:8080/api/mcp",
		Verifier:    verifier{testToken: caller},
		Tools:       tools,
		Logger:      log,
		SessionKeys: [][]byte{bytes.Repeat([]byte{7}, 32)},
		Observer:    tel.FrontdoorObserver(names),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &env{tel: tel, handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fd.ServeHTTP(w, r.WithContext(tel.RequestContext(r)))
	})}
}

// openDB makes a migrated SQLite database with tenant acme, then opens it
// again through the telemetry's driver, as a command would; it returns the
// client and the owner's member id.
func openDB(t *testing.T, tel *telemetry.Telemetry) (*ent.Client, int) {
	t.Helper()
	ctx := context.Background()
	dsn := storetest.DSN(t, storetest.SQLite)
	setup, err := store.Open(ctx, dsn, store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	boot, err := tenancy.Bootstrap(ctx, setup, tenancy.Config{TenantSlug: "acme", OwnerHandle: "alice"})
	setup.Close()
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(dsn, "sqlite:")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	client := ent.NewClient(ent.Driver(tel.EntDriver(db, entsql.OpenDB(dialect.SQLite, db))))
	t.Cleanup(func() { client.Close() })
	return client, boot.Owner.ID
}

// startWorker serves the board from a real worker in memory and returns a
// connection to it with the front door's dial options.
func startWorker(t *testing.T, tel *telemetry.Telemetry, client *ent.Client, log *slog.Logger) *grpc.ClientConn {
	t.Helper()
	boards, err := board.New(board.Config{Client: client, CursorKey: bytes.Repeat([]byte{9}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	roles, err := tenancy.NewResolver(client)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := worker.New(worker.Config{
		Logger:        log,
		Access:        roles,
		Register:      []func(grpc.ServiceRegistrar){boards.Register, access.New(access.Config{}).Register},
		ServerOptions: tel.GRPCServerOptions(),
	})
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	t.Cleanup(func() { srv.Stop(context.Background()) })
	opts := append(tel.GRPCDialOptions(),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	conn, err := grpc.NewClient("passthrough:///bufnet", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// call sends one MCP request as the test's caller and returns the
// response; meta adds to the request's _meta.
func (e *env) call(t *testing.T, method string, params, meta map[string]any) *httptest.ResponseRecorder {
	t.Helper()
	return e.callWith(t, nil, method, params, meta)
}

// callWith is call with more HTTP headers.
func (e *env) callWith(t *testing.T, hdr http.Header, method string, params, meta map[string]any) *httptest.ResponseRecorder {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	m := map[string]any{mcp.MetaProtocolVersion: mcp.LatestVersion, mcp.MetaClientCapabilities: map[string]any{}}
	for k, v := range meta {
		m[k] = v
	}
	params["_meta"] = m
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/api/mcp", bytes.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("MCP-Protocol-Version", mcp.LatestVersion)
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// tool calls a tool with args and fails t unless it answered 200.
func (e *env) tool(t *testing.T, name string, args map[string]any, meta map[string]any) string {
	t.Helper()
	rec := e.call(t, "tools/call", map[string]any{"name": name, "arguments": args}, meta)
	if rec.Code != http.StatusOK {
		t.Fatalf("tools/call %s = %d %s, want 200", name, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// newTelemetry returns a Telemetry that exports nothing, recording spans
// with p when it is not nil.
func newTelemetry(t *testing.T, cfg telemetry.Config) *telemetry.Telemetry {
	t.Helper()
	cfg.Service = "taskwire-test"
	cfg.Getenv = func(string) string { return "" }
	tel, err := telemetry.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tel.Shutdown(context.Background()) })
	return tel
}
