package tests

import (
	"context"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestBrowserTokens: in Chromium, the owner adds an assistant she
// sponsors on the Members page, sees both ways in on the Connect page,
// and mints it a token on the Tokens page;
// the token, read from the page, works for an MCP client; she revokes it
// on the page, and once the front door has heard of it (at once, or a
// moment later over NATS) the client's next call is refused.
func TestBrowserTokens(t *testing.T) {
	s, _ := embeddedSite(t, nodetest.Setups()[0])
	p := signedIn(t, s)
	members := "/t/" + s.tenant + "/members"
	p.open(members)
	p.submit("form#add-assistant", map[string]string{"handle": "claude", "name": "Claude"}, "")
	if p.path() != members || p.count(`tr[data-member="claude"][data-kind="assistant"]`) != 1 {
		t.Fatalf("after adding an assistant the browser shows %s without claude, want the Members page listing it", p.path())
	}
	p.checkPage("the members page", "members")

	// The Connect page offers both ways in: signing in, and a token
	// minted on the Tokens page.
	p.open("/t/" + s.tenant + "/connect")
	if n := p.count(`#oauth pre[id^="oauth-"]`); n != 8 {
		t.Errorf("the Connect page shows %d ways to sign in, want 8", n)
	}
	if p.count(`input#mcp-endpoint[value=`+jsString(s.endpoint)+`]`) != 1 || p.count(`#token a[href="/t/`+s.tenant+`/tokens"]`) != 1 {
		t.Errorf("the Connect page does not show the endpoint %s, or no link to the Tokens page", s.endpoint)
	}
	p.checkPage("the connect page", "connect")

	p.open("/t/" + s.tenant + "/tokens")
	p.submit("form#create-token", map[string]string{"member": "claude", "label": "laptop claude"}, "")
	token, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("new-token").value`))
	if err != nil || token == "" {
		t.Fatalf("the new token's page shows no token (%v)", err)
	}
	id, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("created").dataset.token`))
	if err != nil || id == "" {
		t.Fatalf("the new token's page names no token id (%v)", err)
	}
	if n := p.count(`#created pre[id^="snippet-"]`); n != 6 {
		t.Errorf("the new token's page shows %d client configurations, want 6", n)
	}
	p.checkPage("the new token's page", "tokens")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`button[data-copy="new-token"]`))); err != nil {
		t.Fatal(err)
	}
	p.waitFor("a message about the copy", `!!document.querySelector("#flash p.message")`)

	cs := s.connect(t, token, nil)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("tools/list with the token minted in the console: %v", err)
	}
	p.submit(`tr[data-token="`+id+`"] form.revoke`, nil, "")
	if p.count(`tr[data-token="`+id+`"][data-state="revoked"]`) != 1 {
		t.Errorf("after revoking, the Tokens page does not show token %s revoked", id)
	}
	// The front door hears of the revocation over NATS, within moments.
	poll.Until(t, pageWait, "the MCP endpoint to refuse the revoked token", func() bool {
		return nodetest.ToolsListStatus(t, s.endpoint, "", token) == http.StatusUnauthorized
	})
	// (The client keeps its tools list, so its next request is a call.)
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_list", Arguments: map[string]any{}}); err == nil {
		t.Errorf("the client's tasks_list after the revocation = %v, want it refused", res)
	}
}
