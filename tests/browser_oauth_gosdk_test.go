package tests

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/oauth"
)

// oauthAccessTTL is how long the OAuth tests' access tokens live: short,
// so that a client outlives one and refreshes it.
const oauthAccessTTL = 15 * time.Second

// oauthTestConfig is the OAuth configuration of the end-to-end tests:
// short access tokens, and metadata documents fetched from loopback,
// where the tests serve them.
func oauthTestConfig(c *node.SystemConfig) {
	c.OAuth = node.OAuthConfig{
		Limits:  oauth.Limits{AccessTTL: oauthAccessTTL},
		Clients: oauth.Clients{MetadataLoopback: true},
	}
}

// TestBrowserOAuthGoSDK: the go-sdk client connects to `taskwire serve`
// with no token, as Claude Code does: the 401 names the resource metadata
// and the scopes to ask for, the client finds the authorization server
// from there and identifies itself by its Client ID Metadata Document,
// the owner signs in and approves in the browser, and the client then
// acts as an assistant member the owner sponsors. When its access token
// expires it refreshes it and goes on. A second client registers itself
// dynamically (as Claude.ai and VS Code do) and connects the same way, as
// another assistant of the owner's. The owner revokes the first one's
// grant on the console's Tokens page, and its access token stops working;
// connected again, the client is the same assistant as before.
func TestBrowserOAuthGoSDK(t *testing.T) {
	s, _ := embeddedSiteWith(t, nodetest.Setups()[0], oauthTestConfig)
	p := newPerson(t, s)
	ctx := context.Background()

	cb := newCallback(t)
	id := metadataDocument(t, "Taskwire go-sdk test", cb.URL)
	cs, rec, h := goSDKClient(t, s.endpoint, s.mcpVia, &auth.AuthorizationCodeHandlerConfig{
		ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{URL: id},
		RedirectURL:                    cb.URL, AuthorizationCodeFetcher: cb.fetcher(p, s.firstLink),
	})
	checkChallenge(t, rec.firstChallenge())
	cimd := checkSponsored(t, cs, s.owner)
	created := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Connected by signing in"})
	ref := created["task"].(map[string]any)["ref"]
	items, _ := nodetest.CallOK(t, cs, "tasks_list", nil)["items"].([]any)
	if !slices.ContainsFunc(items, func(i any) bool { return i.(map[string]any)["ref"] == ref }) {
		t.Errorf("tasks_list after creating %s = %v, want it listed", ref, items)
	}

	// Wait out the access token; the next call refreshes it.
	ts, err := h.TokenSource(ctx)
	if err != nil || ts == nil {
		t.Fatalf("the client's token source = %v, %v", ts, err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.RefreshToken == "" {
		t.Fatal("the token response had no refresh token")
	}
	<-time.After(time.Until(tok.Expiry))
	nodetest.CallOK(t, cs, "whoami", nil)
	grants, used := rec.seen()
	if want := []string{"authorization_code", "refresh_token"}; !slices.Equal(grants, want) || used != 2 {
		t.Errorf("after the access token expired the client asked for %v and used %d access tokens, want %v and 2", grants, used, want)
	}

	t.Run("registered", func(t *testing.T) {
		cb := newCallback(t)
		cs, rec, _ := goSDKClient(t, s.endpoint, s.mcpVia, &auth.AuthorizationCodeHandlerConfig{
			DynamicClientRegistrationConfig: registration("Taskwire go-sdk registered", cb.URL),
			RedirectURL:                     cb.URL, AuthorizationCodeFetcher: cb.fetcher(p, ""),
		})
		if dcr := checkSponsored(t, cs, s.owner); dcr == cimd {
			t.Errorf("the registered client acts as %s, as the metadata document's client does: each client is an assistant of its own", dcr)
		}
		if grants, _ := rec.seen(); !slices.Equal(grants, []string{"authorization_code"}) {
			t.Errorf("the registered client asked the token endpoint for %v, want one authorization_code", grants)
		}
	})
	t.Run("revoked in the console", func(t *testing.T) {
		p := &person{t: t, ctx: p.ctx, site: s}
		tok, err := ts.Token()
		if err != nil {
			t.Fatal(err)
		}
		p.open("/t/" + s.tenant + "/tokens")
		row := fmt.Sprintf(`#grant-list tr[data-grant="%d"]`, p.eval(
			`[...document.querySelectorAll("#grant-list tr[data-grant]")].find(r => r.cells[1].textContent.trim() === `+jsString(cimd)+`)?.dataset.grant | 0`))
		if p.count(row) != 1 {
			t.Fatalf("the Tokens page lists no grant of %s under Assistants signed in with OAuth", cimd)
		}
		p.submit(row+" form.revoke", nil, "")
		if p.count(row+`[data-state="live"]`) != 0 {
			t.Errorf("after Revoke the Tokens page still lists the grant of %s as live", cimd)
		}
		poll.Until(t, pageWait, "the access token of a grant revoked in the console to be refused", func() bool {
			return nodetest.ToolsListStatus(t, s.endpoint, "", tok.AccessToken) == http.StatusUnauthorized
		})
	})
	t.Run("connected again", func(t *testing.T) {
		cs, _, _ := goSDKClient(t, s.endpoint, s.mcpVia, &auth.AuthorizationCodeHandlerConfig{
			ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{URL: id},
			RedirectURL:                    cb.URL, AuthorizationCodeFetcher: cb.fetcher(p, ""),
		})
		if again := checkSponsored(t, cs, s.owner); again != cimd {
			t.Errorf("the client connected again acts as %s, want its assistant of before, %s", again, cimd)
		}
	})
}

// checkChallenge checks the 401 an assistant without a token gets: a
// Bearer challenge naming the resource metadata and every scope, which is
// all a client that knows nothing else (ChatGPT's) starts from.
func checkChallenge(t *testing.T, challenge string) {
	t.Helper()
	if !strings.HasPrefix(challenge, "Bearer ") || !strings.Contains(challenge, `resource_metadata="`) ||
		!strings.Contains(challenge, `scope="read comment write"`) {
		t.Errorf("the first 401's WWW-Authenticate = %q, want a Bearer challenge with resource_metadata and scope=\"read comment write\"", challenge)
	}
}

// checkSponsored checks that the client acts as an assistant member
// sponsored by owner, and returns its handle.
func checkSponsored(t *testing.T, cs *mcp.ClientSession, owner string) string {
	t.Helper()
	who := nodetest.CallOK(t, cs, "whoami", nil)
	if who["kind"] != "assistant" || who["sponsor"] != owner {
		t.Errorf("whoami of the OAuth client = %v, want an assistant sponsored by %s", who, owner)
	}
	h, _ := who["handle"].(string)
	return h
}
