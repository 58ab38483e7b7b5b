package tests

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// site is a deployment as the browser tests see it: the front door a
// person's browser opens, and the way an assistant reaches the MCP
// endpoint, through the same front door on the embedded default or
// through the other front doors of a cluster.
type site struct {
	base     string // the public URL of the browser's front door
	tenant   string
	owner    string // the owner's handle
	db       *ent.Client
	issuer   *authn.Issuer
	endpoint string            // the MCP endpoint tokens are bound to
	mcpVia   http.RoundTripper // how an assistant's requests reach it
	operator string            // the operator secret of the admin API at base
	// adminAddr is the host:port of the admin API when base does not
	// serve it (a load balancer of HTTP only).
	adminAddr string
	// firstLink is the path of the owner's one-time link the first
	// start showed, on the embedded default.
	firstLink string
}

// embeddedSite starts `taskwire serve`'s system on s: one front door.
func embeddedSite(t *testing.T, s nodetest.Setup) (*site, *nodetest.Harness) {
	t.Helper()
	return embeddedSiteWith(t, s, nil)
}

// embeddedSiteWith is embeddedSite with the configuration changed by edit
// first, when set.
func embeddedSiteWith(t *testing.T, s nodetest.Setup, edit func(*node.SystemConfig)) (*site, *nodetest.Harness) {
	t.Helper()
	var link string
	s.FirstStart = func(ctx context.Context, sys *node.System, out io.Writer) error {
		w, err := sys.Welcome(ctx)
		if err != nil {
			return err
		}
		link = w.SignInLink
		_, err = fmt.Fprintf(out, "operator secret %s\n  %s\n", sys.NewOperatorSecret(), w.Token)
		return err
	}
	h := nodetest.StartWith(t, s, edit)
	first := h.Sys.First()
	base := h.Sys.Config().PublicURL
	if !strings.HasPrefix(link, base+"/signin/link?k=") {
		t.Fatalf("the first start's sign-in link = %q, want %s/signin/link?k=…", link, base)
	}
	return &site{
		base: base, tenant: first.Tenant.Slug, owner: first.Owner.Handle,
		db: h.Sys.DB, issuer: h.Sys.Issuer, endpoint: h.Sys.Endpoint, mcpVia: http.DefaultTransport,
		operator: h.OperatorSecret(t), firstLink: strings.TrimPrefix(link, base),
	}, h
}

// clusterSite starts a cluster on s (two front doors behind one public
// URL, which assistants use) and a third front door of its own public URL
// on loopback for the browser, as a person's browser reaches a replica
// the assistants do not.
func clusterSite(t *testing.T, s nodetest.Setup) *site {
	t.Helper()
	secret := rand.Text() + rand.Text()
	op, err := adminedge.NewOperatorSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	s.Operator = op
	c := nodetest.StartCluster(t, s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.Front
	cfg.Listener, cfg.NATS, cfg.PublicURL = ln, natstest.Connect(t, c.NATSURL), "http://"+ln.Addr().String()
	f, err := node.NewFrontdoor(cfg)
	if err == nil {
		err = f.Start(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Stop(context.Background()) })
	return &site{
		base: cfg.PublicURL, tenant: "acme", owner: "ada", db: c.DB, issuer: c.Issuer,
		endpoint: c.Endpoint, mcpVia: nodetest.NewAlternate(c.Fronts), operator: secret,
	}
}

// signInLink is a one-time sign-in link for the person with handle, made
// by the operator through the admin API, as the first start makes the
// owner's.
func (s *site) signInLink(t *testing.T, handle string) string {
	t.Helper()
	addr := s.adminAddr
	if addr == "" {
		addr = s.base[len("http://"):]
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	res, err := adminv1.NewAdminServiceClient(conn).CreateSignInLink(nodetest.AsGRPC(s.operator),
		&adminv1.CreateSignInLinkRequest{Tenant: s.tenant, Handle: handle})
	if err != nil {
		t.Fatalf("CreateSignInLink(%s): %v", handle, err)
	}
	return "/signin/link?k=" + res.GetSecret()
}

// assistant adds an assistant member the owner sponsors, and connects it
// with a token of every scope, as an MCP client would.
func (s *site) assistant(t *testing.T, handle string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	m, err := tenancy.AddMember(context.Background(), s.db, s.tenant, tenancy.MemberSpec{
		Handle: handle, Name: "Assistant " + handle, Kind: member.KindAssistant, SponsorHandle: s.owner})
	if err != nil {
		t.Fatal(err)
	}
	return s.connect(t, nodetest.RecordToken(t, s.db, s.issuer, s.tenant, m.ID, authz.AllScopes), opts)
}

// connect connects the go-sdk client with token to the MCP endpoint.
func (s *site) connect(t *testing.T, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	rec := nodetest.NewWireRecorder(t, token, "", s.mcpVia)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "taskwire-browser-assistant", Version: "1.0.0"}, opts).Connect(
		context.Background(), &mcp.StreamableClientTransport{
			Endpoint: s.endpoint, HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1,
		}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
