package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// TestTokenShownOnce: a minted token is on the response to the form
// only, with each client's configuration and copy buttons, and never in
// a URL or a stored page.
func TestTokenShownOnce(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	page := e.do("GET", "/t/acme/tokens", nil, session).Body.String()
	for _, want := range []string{
		`<option value="ada">ada (you)</option>`, `<option value="bot">bot</option>`,
		`name="scope" value="write" checked`, `name="toolset" value="audit"`, `<option value="30" selected>30 days</option>`,
		`<tr data-token="tok-olga" data-state="live">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the Tokens page lacks %s", want)
		}
	}
	if strings.Contains(page, `<option value="olga">`) {
		t.Error("a viewer is offered to mint for the owner")
	}
	resp := e.do("POST", "/t/acme/tokens", url.Values{"csrf": {csrf}, "member": {"bot"}, "label": {"ci <bot>"},
		"scope": {"read", "comment"}, "toolset": {"tasks"}, "days": {"7"}}, session)
	page = resp.Body.String()
	if resp.Code != http.StatusOK || resp.Header().Get("Location") != "" || resp.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("minting = %d, Location %q, Cache-Control %q; want 200 here, no redirect, no-store",
			resp.Code, resp.Header().Get("Location"), resp.Header().Get("Cache-Control"))
	}
	for _, want := range []string{
		`<input id="new-token" type="text" readonly value="` + fakeToken + `"`, `data-copy="new-token"`,
		`Token “ci &lt;bot&gt;” for bot`, `<code>http://127.0.0.1:8080/api/mcp</code>`,
		`claude mcp add --transport http taskwire http://127.0.0.1:8080/api/mcp --header &#39;Authorization: Bearer ` + fakeToken,
		`Cursor`, `VS Code`, `Windsurf`, `Gemini CLI`, `taskwire-bridge`, `&#34;TASKWIRE_TOKEN&#34;: &#34;` + fakeToken,
		`data-copy="snippet-5"`, `<td>read, comment</td>`, `<td>tasks</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the new token's page lacks %s", want)
		}
	}
	if strings.Contains(e.do("GET", "/t/acme/tokens", nil, session).Body.String(), fakeToken) {
		t.Error("the token is shown again on the next visit")
	}
	if member, kind := e.worker.admin.lastIdentity(); member != 7 || kind != "session" {
		t.Errorf("the admin calls were made as member %d with %q, want member 7 with a session", member, kind)
	}
}

// TestRevokeToken: revoking is a POST with the form's token; a refusal
// is shown on the page in the service's words.
func TestRevokeToken(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	e.do("POST", "/t/acme/tokens", url.Values{"csrf": {csrf}, "member": {"ada"}, "scope": {"read"}, "days": {"1"}}, session)
	if resp := e.do("POST", "/t/acme/tokens/tok-1/revoke", url.Values{}, session); resp.Code != http.StatusForbidden {
		t.Errorf("revoking without a CSRF token = %d, want 403", resp.Code)
	}
	resp := e.do("POST", "/t/acme/tokens/tok-1/revoke", url.Values{"csrf": {csrf}}, session)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/t/acme/tokens" {
		t.Fatalf("revoking = %d to %q, want 303 to the Tokens page", resp.Code, resp.Header().Get("Location"))
	}
	page := e.do("GET", "/t/acme/tokens", nil, session).Body.String()
	if !strings.Contains(page, `<tr data-token="tok-1" data-state="revoked">`) || strings.Contains(page, `action="/t/acme/tokens/tok-1/revoke"`) {
		t.Errorf("the revoked token is not shown revoked, or still has a Revoke button:\n%s", page)
	}
	other := e.do("POST", "/t/acme/tokens/tok-olga/revoke", url.Values{"csrf": {csrf}}, session)
	if other.Code != http.StatusForbidden || !strings.Contains(other.Body.String(), "You may revoke tokens of yourself and the assistants you sponsor only.") {
		t.Errorf("revoking the owner's token = %d, want 403 with the service's sentence", other.Code)
	}
}

// TestTokenExpiriesWithinMax: the form offers no lifetime beyond the
// deployment's maximum.
func TestTokenExpiriesWithinMax(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxTokenTTL = 10 * 24 * time.Hour })
	session, _ := e.signIn()
	page := e.do("GET", "/t/acme/tokens", nil, session).Body.String()
	if !strings.Contains(page, `<option value="7" selected>7 days</option>`) || strings.Contains(page, `value="30"`) {
		t.Errorf("with a 10-day maximum the form offers other than 1 and 7 days:\n%s", page)
	}
}

// TestTokenMembersOffered: the form offers whom the service lets the
// person mint for: an admin anyone but owners.
func TestTokenMembersOffered(t *testing.T) {
	e := newEnv(t, nil)
	asRole(e.worker, taskwirev1.MemberRole_MEMBER_ROLE_ADMIN)
	session, _ := e.signIn()
	page := e.do("GET", "/t/acme/tokens", nil, session).Body.String()
	if !strings.Contains(page, `<option value="ada">ada (you)</option>`) || !strings.Contains(page, `<option value="bot">bot</option>`) ||
		strings.Contains(page, `<option value="olga">`) {
		t.Errorf("an admin's form offers other than ada and bot (never the owner olga):\n%s", page)
	}
}
