package console

import (
	"net/http"
	"strings"
	"testing"
)

// TestConnectPage: the Connect page shows the MCP endpoint with a copy
// button, each client's way of signing in (no header, nothing secret)
// and its token configuration with a placeholder, pointing to the Tokens
// page to mint one; every tenant page links to it, and so does the
// Tokens page.
func TestConnectPage(t *testing.T) {
	e := newEnv(t, nil)
	if resp := e.do("GET", "/t/acme/connect", nil); resp.Code != http.StatusSeeOther || !strings.HasPrefix(resp.Header().Get("Location"), "/signin") {
		t.Errorf("the Connect page without a session = %d to %q, want 303 to the sign-in page", resp.Code, resp.Header().Get("Location"))
	}
	session, _ := e.signIn()
	resp := e.do("GET", "/t/acme/connect", nil, session)
	page := resp.Body.String()
	if resp.Code != http.StatusOK {
		t.Fatalf("GET /t/acme/connect = %d, want 200:\n%s", resp.Code, page)
	}
	oauth, token, ok := strings.Cut(page, `<section id="token"`)
	if !ok {
		t.Fatalf("the Connect page has no Token section:\n%s", page)
	}
	for _, want := range []string{
		`<input id="mcp-endpoint" type="text" readonly value="http://127.0.0.1:8080/api/mcp">`, `data-copy="mcp-endpoint"`,
		`<summary>Claude.ai and Claude Desktop</summary>`, `<summary>ChatGPT (developer mode)</summary>`, `<summary>MCP Inspector</summary>`,
		`data-lang="shell" tabindex="0">claude mcp add --transport http taskwire http://127.0.0.1:8080/api/mcp</pre>`,
		`Then run /mcp in Claude Code, pick taskwire and sign in.`,
		"&#34;servers&#34;: {\n    &#34;taskwire&#34;: {\n      &#34;type&#34;: &#34;http&#34;,\n      &#34;url&#34;: &#34;http://127.0.0.1:8080/api/mcp&#34;\n    }",
		`data-copy="oauth-0"`,
	} {
		if !strings.Contains(oauth, want) {
			t.Errorf("the Connect page's Sign in section lacks %s", want)
		}
	}
	if strings.Contains(oauth, "Bearer") || strings.Contains(oauth, TokenPlaceholder+"</pre>") {
		t.Errorf("the Sign in section carries a token header:\n%s", oauth)
	}
	for _, want := range []string{
		`<a href="/t/acme/tokens">Create a token on the Tokens page</a>`,
		`--header &#39;Authorization: Bearer ` + TokenPlaceholder + `&#39;</pre>`,
		`&#34;TASKWIRE_TOKEN&#34;: &#34;` + TokenPlaceholder, `<summary>Windsurf</summary>`,
	} {
		if !strings.Contains(token, want) {
			t.Errorf("the Connect page's Token section lacks %s", want)
		}
	}
	link := `<a class="connect-link" href="/t/acme/connect">Connect an assistant</a>`
	if !strings.Contains(e.do("GET", "/t/acme/", nil, session).Body.String(), link) {
		t.Errorf("the board's header lacks %s", link)
	}
	if !strings.Contains(e.do("GET", "/t/acme/tokens", nil, session).Body.String(), `An assistant can also sign in instead: see <a href="/t/acme/connect">`) {
		t.Error("the Tokens page does not point to the Connect page")
	}
}
