package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// consentWait bounds one consent in the browser: the authorization page,
// the sign-in on the way, the approval and the redirect to the client.
const consentWait = 30 * time.Second

// approve is what a person does when an assistant asks to connect: the
// browser opens authURL (the client's authorization request); when the
// console sends it to sign in, the person signs in with the one-time link
// (a path of the console) and comes back to the request; on the consent
// page the person presses Approve. It returns the URL the browser was
// redirected to, the client's loopback callback, which the client's own
// server received. It returns errors instead of failing the test, for it
// runs inside the clients' authorization callbacks.
func (p *person) approve(authURL, link string) (string, error) {
	ctx, cancel := context.WithTimeout(p.ctx, consentWait)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(authURL)); err != nil {
		return "", fmt.Errorf("opening the authorization URL: %w", err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return "", err
	}
	if u, _ := url.Parse(loc); u != nil && u.Path == "/signin" {
		if !strings.Contains(u.Query().Get("next"), "/oauth/authorize") {
			return "", fmt.Errorf("the console sent the person to sign in at %s, without the authorization request to come back to", loc)
		}
		if err := p.signInWith(ctx, link); err != nil {
			return "", err
		}
		if err := p.backToConsent(ctx, authURL); err != nil {
			return "", err
		}
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("form#consent #approve").length`)); n != 1 {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		return "", fmt.Errorf("the authorization page at %s has no consent form with #approve; it says:\n%s", loc, body)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("form#consent #approve"))); err != nil {
		return "", fmt.Errorf("pressing Approve: %w", err)
	}
	return p.leftConsole(ctx)
}

// signInWith signs the person in with the one-time link at path.
func (p *person) signInWith(ctx context.Context, path string) error {
	if err := chromedp.Do(ctx, chromedp.Navigate(p.site.base+path)); err != nil {
		return fmt.Errorf("opening the sign-in link: %w", err)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`form#signin-link button[type="submit"]`))); err != nil {
		return fmt.Errorf("signing in with the link: %w", err)
	}
	return nil
}

// backToConsent opens the authorization request again unless the sign-in
// already came back to it.
func (p *person) backToConsent(ctx context.Context, authURL string) error {
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("form#consent").length`)); n == 1 {
		return nil
	}
	return chromedp.Do(ctx, chromedp.Navigate(authURL))
}

// leftConsole waits for the browser to leave the console for the
// client's redirect URI, and returns where it went.
func (p *person) leftConsole(ctx context.Context) (string, error) {
	for {
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil && loc != "" && !strings.HasPrefix(loc, p.site.base) && !strings.HasPrefix(loc, "about:") {
			return loc, nil
		}
		select {
		case <-ctx.Done():
			body, _ := chromedp.Run(p.ctx, chromedp.Text(chromedp.CSS("body")))
			return "", fmt.Errorf("after Approve the browser stayed at %s, saying:\n%s", loc, body)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// callback is an OAuth client's loopback redirect target (RFC 8252): it
// passes the authorization response on to the flow waiting for it.
type callback struct {
	URL string // its redirect URI
	got chan url.Values
	srv *httptest.Server
}

// newCallback starts a client's callback server, stopped when t ends.
func newCallback(t *testing.T) *callback {
	t.Helper()
	c := &callback{got: make(chan url.Values, 4)}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		c.got <- r.URL.Query()
		fmt.Fprintln(w, "Signed in; you can close this window.")
	}))
	t.Cleanup(c.srv.Close)
	c.URL = c.srv.URL + "/callback"
	return c
}

// wait is the next authorization response the callback got.
func (c *callback) wait(ctx context.Context) (url.Values, error) {
	select {
	case q := <-c.got:
		return q, nil
	case <-ctx.Done():
		return nil, errors.New("the client's callback got no authorization response")
	}
}

// fetcher is a go-sdk AuthorizationCodeFetcher that has the person
// approve in the browser and takes the code from the callback.
func (c *callback) fetcher(p *person, link string) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if _, err := p.approve(args.URL, link); err != nil {
			return nil, err
		}
		q, err := c.wait(ctx)
		if err != nil {
			return nil, err
		}
		if e := q.Get("error"); e != "" {
			return nil, fmt.Errorf("authorization refused: %s: %s", e, q.Get("error_description"))
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

// metadataDocument serves a Client ID Metadata Document over TLS on
// loopback, as a client publishes one at its client_id, and returns that
// URL. The worker is configured to fetch from loopback (tests only).
func metadataDocument(t *testing.T, name string, redirects ...string) string {
	t.Helper()
	var id string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/client.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"client_id": id, "client_name": name, "redirect_uris": redirects,
			"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
			"token_endpoint_auth_method": "none",
		})
	}))
	t.Cleanup(srv.Close)
	id = srv.URL + "/client.json"
	return id
}

// oauthRecorder watches an OAuth client's own HTTP traffic (the client's
// transport, not the server's): the grants it asked the token endpoint
// for and the access tokens it sent to the MCP endpoint.
type oauthRecorder struct {
	base   http.RoundTripper
	mu     sync.Mutex
	grants []string
	bearer []string // each distinct access token, in the order first sent
	first  map[string]bool
	// challenge is the WWW-Authenticate of the first 401 the client got.
	challenge string
	client    string // the client_id it sent the token endpoint
}

func newOAuthRecorder(base http.RoundTripper) *oauthRecorder {
	return &oauthRecorder{base: base, first: map[string]bool{}}
}

// RoundTrip records req and sends it on.
func (o *oauthRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	o.mu.Lock()
	if strings.HasSuffix(req.URL.Path, "/oauth/token") && req.Body != nil {
		if body, err := req.GetBody(); err == nil {
			raw, _ := io.ReadAll(body)
			if q, err := url.ParseQuery(string(raw)); err == nil {
				o.grants = append(o.grants, q.Get("grant_type"))
				o.client = q.Get("client_id")
			}
		}
	}
	if tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer "); ok && !o.first[tok] {
		o.first[tok] = true
		o.bearer = append(o.bearer, tok)
	}
	o.mu.Unlock()
	resp, err := o.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		o.mu.Lock()
		if o.challenge == "" {
			o.challenge = resp.Header.Get("WWW-Authenticate")
		}
		o.mu.Unlock()
	}
	return resp, err
}

// seen is what the recorder saw so far: the grant types and how many
// access tokens were used.
func (o *oauthRecorder) seen() ([]string, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.grants...), len(o.bearer)
}

// clientID is the client_id the client sent the token endpoint, failing
// t if it sent none.
func clientID(t *testing.T, o *oauthRecorder) string {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.client == "" {
		t.Fatal("the client sent the token endpoint no client_id")
	}
	return o.client
}

// firstChallenge is the WWW-Authenticate of the first 401 the client got.
func (o *oauthRecorder) firstChallenge() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.challenge
}

// goSDKClient connects the go-sdk's MCP client with its OAuth support to
// endpoint: it finds everything from the 401, identifies itself by cfg
// (a metadata document or a registration), and has the person approve.
// via carries its requests (the MCP endpoint's and the OAuth ones).
func goSDKClient(t *testing.T, endpoint string, via http.RoundTripper, cfg *auth.AuthorizationCodeHandlerConfig) (*mcp.ClientSession, *oauthRecorder, *auth.AuthorizationCodeHandler) {
	t.Helper()
	rec := newOAuthRecorder(via)
	hc := &http.Client{Transport: rec}
	cfg.Client = hc
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "taskwire-go-oauth", Version: "1.0.0"}, nil).Connect(
		context.Background(), &mcp.StreamableClientTransport{
			Endpoint: endpoint, HTTPClient: hc, OAuthHandler: h, DisableStandaloneSSE: true, MaxRetries: -1,
		}, nil)
	if err != nil {
		t.Fatalf("connecting the go-sdk client by OAuth: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec, h
}

// registration is the go-sdk's dynamic client registration of a public
// client with redirect.
func registration(name, redirect string) *auth.DynamicClientRegistrationConfig {
	return &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
		ClientName: name, RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
	}}
}
