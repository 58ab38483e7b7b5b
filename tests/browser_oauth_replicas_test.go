package tests

import (
	"context"
	"crypto/rand"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/oauth"
)

// oauthCluster starts a cluster on s (one worker, two front doors, A
// and B) behind a load balancer on loopback whose URL is the public URL,
// so that browsers and clients reach it as a deployment's. The balancer
// sends the browser's console pages (the consent among them) to A, the
// OAuth endpoints of the clients (registration, token, revocation,
// metadata) to B, and the MCP endpoint to each in turn: every flow starts
// on one replica and completes on the other.
func oauthCluster(t *testing.T, s nodetest.Setup) (*site, *nodetest.Cluster) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	secret := rand.Text() + rand.Text()
	op, err := adminedge.NewOperatorSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	s.Operator, s.PublicURL, s.Audience = op, public, public+"/api/mcp"
	s.OAuth = node.OAuthConfig{Limits: oauth.Limits{AccessTTL: oauthAccessTTL}, Clients: oauth.Clients{MetadataLoopback: true}}
	c := nodetest.StartCluster(t, s)
	lb := &http.Server{Handler: &balancer{fronts: c.Fronts}}
	go lb.Serve(ln)
	t.Cleanup(func() { lb.Shutdown(context.Background()) })
	return &site{
		base: public, tenant: "acme", owner: "ada", db: c.DB, issuer: c.Issuer, endpoint: c.Endpoint,
		mcpVia: http.DefaultTransport, operator: secret, adminAddr: c.Fronts[0],
	}, c
}

// balancer is oauthCluster's load balancer.
type balancer struct {
	fronts []string
	next   atomic.Int32
}

// ServeHTTP passes r on to the front door its path goes to, keeping its
// Host, as a load balancer does.
func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	front := b.fronts[0]
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, "/api/"):
		front = b.fronts[int(b.next.Add(1))%len(b.fronts)]
	case strings.HasPrefix(p, "/.well-known/"), p == "/oauth/token", p == "/oauth/register", p == "/oauth/revoke":
		front = b.fronts[1]
	}
	(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.Out.URL.Scheme, pr.Out.URL.Host = "http", front
		pr.Out.Host = pr.In.Host
	}}).ServeHTTP(w, r)
}

// TestBrowserOAuthReplicas: on two front doors with PostgreSQL, the go-sdk
// client registers itself on B, the owner approves on A, and the client
// exchanges the code on B and calls tools on both. When the client
// revokes its grant at A (RFC 7009), B refuses its access token too,
// within the second the console promises (polled, with a generous
// deadline for a loaded machine), and its refresh token is dead. Then a
// go-sdk client known by its Client ID Metadata Document connects
// through the same replicas.
func TestBrowserOAuthReplicas(t *testing.T) {
	s, c := oauthCluster(t, nodetest.Setups()[1])
	p := newPerson(t, s)
	cb := newCallback(t)
	cs, rec, h := goSDKClient(t, s.endpoint, s.mcpVia, &auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: registration("Taskwire go-sdk on replicas", cb.URL),
		RedirectURL:                     cb.URL, AuthorizationCodeFetcher: cb.fetcher(p, s.signInLink(t, s.owner)),
	})
	checkChallenge(t, rec.firstChallenge())
	checkSponsored(t, cs, s.owner)
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Made through two replicas"})

	ts, _ := h.TokenSource(context.Background())
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(s.base, "http://")
	for _, front := range c.Fronts {
		if got := nodetest.ToolsListStatus(t, "http://"+front+"/api/mcp", host, tok.AccessToken); got != http.StatusOK {
			t.Fatalf("tools/list at %s before the revocation = %d, want 200", front, got)
		}
	}
	form := url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {clientID(t, rec)}}
	req, _ := http.NewRequest(http.MethodPost, "http://"+c.Fronts[0]+"/oauth/revoke", strings.NewReader(form.Encode()))
	req.Host = host
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /oauth/revoke at A = %d, want 200", resp.StatusCode)
	}
	poll.Until(t, pageWait, "B to refuse the access token of a grant revoked at A", func() bool {
		return nodetest.ToolsListStatus(t, "http://"+c.Fronts[1]+"/api/mcp", host, tok.AccessToken) == http.StatusUnauthorized
	})
	status, got := (&oauthPlain{t: t, base: s.base, endpoint: s.endpoint}).refresh(form.Get("client_id"), tok.RefreshToken)
	oauthError(t, "the refresh token of a revoked grant", status, got, "invalid_grant")

	// A client known by its metadata document (as Claude Code is) connects
	// through the same two replicas: its document is fetched once, by the
	// worker, whichever front door the client asks.
	cb2 := newCallback(t)
	id := metadataDocument(t, "Taskwire go-sdk by metadata on replicas", cb2.URL)
	cs2, rec2, _ := goSDKClient(t, s.endpoint, s.mcpVia, &auth.AuthorizationCodeHandlerConfig{
		ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{URL: id},
		RedirectURL:                    cb2.URL, AuthorizationCodeFetcher: cb2.fetcher(p, s.signInLink(t, s.owner)),
	})
	if grants, _ := rec2.seen(); !slices.Equal(grants, []string{"authorization_code"}) {
		t.Errorf("the metadata-document client asked the token endpoint for %v, want one authorization_code grant", grants)
	}
	checkSponsored(t, cs2, s.owner)
	nodetest.CallOK(t, cs2, "tasks_list", map[string]any{"limit": 5})
}
