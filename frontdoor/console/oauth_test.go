package console

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// authorizeQuery is a well-formed authorization request of the fake's client.
var authorizeQuery = url.Values{
	"response_type": {"code"}, "client_id": {fakeClient}, "redirect_uri": {"https://app.example/cb?x=1"},
	"scope": {"read comment"}, "state": {"st&ate"}, "code_challenge": {"chal"}, "code_challenge_method": {"S256"},
	"resource": {"http://127.0.0.1:8080/api/mcp"},
}

var nextRE = regexp.MustCompile(`name="next" value="([^"]*)"`)

// TestAuthorizeSignsInFirst: a person not signed in is sent to sign in,
// and back to the very authorization request after.
func TestAuthorizeSignsInFirst(t *testing.T) {
	e := newEnv(t, nil)
	target := "/oauth/authorize?" + authorizeQuery.Encode()
	resp := e.do("GET", target, nil)
	loc, _ := url.Parse(resp.Header().Get("Location"))
	if resp.Code != http.StatusSeeOther || loc.Path != "/signin" || loc.Query().Get("next") != target {
		t.Fatalf("GET %s signed out = %d to %q, want 303 to /signin with next", target, resp.Code, resp.Header().Get("Location"))
	}
	form := e.do("GET", loc.String(), nil)
	m := nextRE.FindStringSubmatch(form.Body.String())
	if m == nil || html.UnescapeString(m[1]) != target {
		t.Fatalf("the sign-in form carries next %q, want %s", m, target)
	}
	pre := cookieNamed(form, "__Host-taskwire-presession")
	back := e.do("POST", "/signin", url.Values{"email": {"ada@example.com"}, "password": {goodPassword},
		"csrf": {csrfOf(t, form.Body.String())}, "next": {target}}, pre)
	if back.Code != http.StatusSeeOther || back.Header().Get("Location") != target {
		t.Errorf("signing in = %d to %q, want 303 back to %s", back.Code, back.Header().Get("Location"), target)
	}
}

// TestConsentPage: the page names the client, how it is known, where the
// browser goes back, what it may do and as whom, with the agreed form.
func TestConsentPage(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	resp := e.do("GET", "/oauth/authorize?"+authorizeQuery.Encode(), nil, session)
	page := resp.Body.String()
	if resp.Code != http.StatusOK {
		t.Fatalf("consent page = %d:\n%s", resp.Code, page)
	}
	for _, want := range []string{
		`<form id="consent" method="post" action="/oauth/authorize">`,
		`<button id="approve" type="submit" name="decision" value="approve">`,
		`<button id="deny" type="submit" name="decision" value="deny"`,
		`Connect App &lt;b&gt; to Taskwire?`, `verified by its metadata document at app.example`,
		`<strong>app.example</strong>`, `<li>read the boards, tasks, comments and history</li>`, `<li>comment on tasks</li>`,
		`<input type="hidden" name="tenant" value="acme">`, `the assistant <strong>ada-app</strong> with the role viewer`,
		`<input type="hidden" name="state" value="st&amp;ate">`, `<input type="hidden" name="code_challenge" value="chal">`,
		`<img class="client-logo" src="https://cdn.app.example/logo.png"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the consent page lacks %s", want)
		}
	}
	if strings.Contains(page, "write tasks") || strings.Contains(page, `id="consent-local"`) {
		t.Error("the page offers a scope not asked for, or warns of a local redirect")
	}
	csp := resp.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "form-action 'self' https://app.example;") || !strings.Contains(csp, "img-src 'self' data: https://cdn.app.example;") {
		t.Errorf("the consent page's CSP = %q, want form-action to allow the redirect's origin and img-src the logo's", csp)
	}
}

// TestConsentTenantChoice: a person with several tenants picks one, each
// with the role and handle the assistant will have there.
func TestConsentTenantChoice(t *testing.T) {
	e := newEnv(t, nil)
	e.worker.oauth.tenants = append(e.worker.oauth.tenants, &taskwirev1.ConsentTenant{Tenant: "beta", TenantName: "Beta",
		AssistantRole: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER, AssistantHandle: "ada-app2", GrantedBefore: true})
	session, _ := e.signIn()
	page := e.do("GET", "/oauth/authorize?"+authorizeQuery.Encode(), nil, session).Body.String()
	for _, want := range []string{`<select id="consent-tenant" name="tenant">`, `<option value="acme">Acme &amp; Co: as ada-app, viewer</option>`,
		`<option value="beta">Beta: as ada-app2, member (connected before)</option>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the consent page lacks %s", want)
		}
	}
}

// TestConsentDecisions: deny and approve send the browser back to the
// client's redirect URI, its own query kept, with state and iss; approve
// with a code for the tenant chosen. Neither works without the form's
// CSRF token.
func TestConsentDecisions(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	form := func(decision string) url.Values {
		f := url.Values{"csrf": {csrf}, "decision": {decision}, "tenant": {"acme"}}
		for k, v := range authorizeQuery {
			f[k] = v
		}
		return f
	}
	for decision, want := range map[string]url.Values{
		"deny":    {"x": {"1"}, "error": {"access_denied"}, "error_description": {"The person denied the request."}, "state": {"st&ate"}, "iss": {"http://127.0.0.1:8080"}},
		"approve": {"x": {"1"}, "code": {"code-1"}, "state": {"st&ate"}, "iss": {"http://127.0.0.1:8080"}},
	} {
		resp := e.do("POST", "/oauth/authorize", form(decision), session)
		loc, _ := url.Parse(resp.Header().Get("Location"))
		if resp.Code != http.StatusSeeOther || loc.Scheme+"://"+loc.Host+loc.Path != "https://app.example/cb" || loc.Query().Encode() != want.Encode() {
			t.Errorf("%s = %d to %q, want 303 to https://app.example/cb?%s", decision, resp.Code, loc, want.Encode())
		}
	}
	if n := len(e.worker.oauth.approved); n != 1 || e.worker.oauth.approved[0].GetTenant() != "acme" || e.worker.oauth.approved[0].GetRequest().GetCodeChallenge() != "chal" {
		t.Errorf("the workers were asked to approve %v", e.worker.oauth.approved)
	}
	noCSRF := form("approve")
	noCSRF.Del("csrf")
	if resp := e.do("POST", "/oauth/authorize", noCSRF, session); resp.Code != http.StatusForbidden || resp.Header().Get("Location") != "" {
		t.Errorf("approving without the CSRF token = %d to %q, want 403 and no redirect", resp.Code, resp.Header().Get("Location"))
	}
}

// TestAuthorizeErrors: a request whose client or redirect URI cannot be
// trusted is refused on a page, never redirected (no open redirect),
// deny included; any other error goes to the client with state and iss.
func TestAuthorizeErrors(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	evil := url.Values{"response_type": {"code"}, "client_id": {fakeClient}, "redirect_uri": {"https://evil.example/steal"}, "state": {"s"}, "code_challenge": {"c"}}
	resp := e.do("GET", "/oauth/authorize?"+evil.Encode(), nil, session)
	if resp.Code != http.StatusBadRequest || resp.Header().Get("Location") != "" ||
		!strings.Contains(resp.Body.String(), "The redirect URI is not the client&#39;s.") || !strings.Contains(resp.Body.String(), "Go back to the assistant") {
		t.Errorf("an untrusted redirect URI = %d to %q, want 400 on a page saying what is wrong:\n%s", resp.Code, resp.Header().Get("Location"), resp.Body)
	}
	evil.Set("csrf", csrf)
	evil.Set("decision", "deny")
	if resp := e.do("POST", "/oauth/authorize", evil, session); resp.Code != http.StatusBadRequest || resp.Header().Get("Location") != "" {
		t.Errorf("denying with an untrusted redirect URI = %d to %q, want 400 and no redirect", resp.Code, resp.Header().Get("Location"))
	}
	noPKCE := url.Values{"response_type": {"code"}, "client_id": {fakeClient}, "state": {"s1"}}
	resp = e.do("GET", "/oauth/authorize?"+noPKCE.Encode(), nil, session)
	loc, _ := url.Parse(resp.Header().Get("Location"))
	q := loc.Query()
	if resp.Code != http.StatusSeeOther || loc.Host != "app.example" || q.Get("error") != "invalid_request" || q.Get("state") != "s1" ||
		q.Get("iss") != "http://127.0.0.1:8080" || q.Get("error_description") == "" {
		t.Errorf("a request without PKCE = %d to %q, want 303 to the client with the error, state and iss", resp.Code, loc)
	}
}

// TestGrants: the Tokens page lists the tenant's grants with a Revoke
// button; revoking says so and shows the grant revoked.
func TestGrants(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	page := e.do("GET", "/t/acme/tokens", nil, session).Body.String()
	for _, want := range []string{`Assistants signed in with OAuth`, `<tr data-grant="41" data-state="live">`, `<td>App &lt;b&gt; <span class="hint">(app.example)</span></td>`,
		`<td>ada-app</td>`, `<td>read, comment</td>`, `action="/t/acme/grants/41/revoke"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the Tokens page lacks %s", want)
		}
	}
	if strings.Contains(page, "Elsewhere") {
		t.Error("the Tokens page of acme lists a grant of another tenant")
	}
	if resp := e.do("POST", "/t/acme/grants/41/revoke", url.Values{}, session); resp.Code != http.StatusForbidden {
		t.Errorf("revoking without a CSRF token = %d, want 403", resp.Code)
	}
	resp := e.do("POST", "/t/acme/grants/41/revoke", url.Values{"csrf": {csrf}}, session)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/t/acme/tokens?grant=revoked" {
		t.Fatalf("revoking = %d to %q, want 303 to the Tokens page", resp.Code, resp.Header().Get("Location"))
	}
	page = e.do("GET", resp.Header().Get("Location"), nil, session).Body.String()
	if !strings.Contains(page, "The grant was revoked") || !strings.Contains(page, `<tr data-grant="41" data-state="revoked">`) ||
		strings.Contains(page, `action="/t/acme/grants/41/revoke"`) {
		t.Errorf("after revoking, the page does not say so or still offers Revoke:\n%s", page)
	}
	if resp := e.do("POST", "/t/acme/grants/42/revoke", url.Values{"csrf": {csrf}}, session); resp.Code != http.StatusNotFound {
		t.Errorf("revoking a grant of another tenant = %d, want 404", resp.Code)
	}
}

// TestConsentCSP: the consent page's policy lets its form end at the
// redirect URI's origin (or a native app's scheme) and shows an https
// logo, and nothing a client writes can add a directive.
func TestConsentCSP(t *testing.T) {
	for _, tc := range []struct{ redirect, logo, formAction, img string }{
		{"http://127.0.0.1:33418/callback", "", "form-action 'self' http://127.0.0.1:33418;", "img-src 'self' data:;"},
		{"cursor://anysphere.cursor-retrieval/oauth/cb", "https://x.example/l.png", "form-action 'self' cursor:;", "img-src 'self' data: https://x.example;"},
		{"http://[::1]:9/cb", "", "form-action 'self' http://[::1]:9;", "img-src 'self' data:;"},
		{"https://a.example;script-src%20*/cb", "https://b.example;x/l.png", "form-action 'self';", "img-src 'self' data:;"},
		{"not a url", "", "form-action 'self';", "img-src 'self' data:;"},
		{"javascript:alert(1)", "http://clear.example/l.png", "form-action 'self';", "img-src 'self' data:;"},
	} {
		csp := consentCSP(tc.redirect, tc.logo)
		if !strings.Contains(csp, tc.formAction) || !strings.Contains(csp, tc.img) || strings.Count(csp, ";") != strings.Count(CSP, ";") {
			t.Errorf("consentCSP(%q, %q) = %q, want %s and %s", tc.redirect, tc.logo, csp, tc.formAction, tc.img)
		}
	}
}
