package tests

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// ownerSignedIn is a browser in which the first start's owner signed in
// with the first start's link, as owner@example.com.
func ownerSignedIn(t *testing.T, h *nodetest.Harness) *browser {
	t.Helper()
	w, err := h.Sys.Welcome(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(w.SignInLink)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, h.Sys.Config().PublicURL)
	firstSignIn(t, b, u.Query().Get("k"))
	return b
}

var ownerLinkRE = regexp.MustCompile(`<code id="owner-link">[^<]*/signin/link\?k=([^<]+)</code>`)

// TestConsoleOperator: the first start's owner is a platform operator:
// the header links the operator pages, where they create a tenant (whose
// first owner signs in with the link shown once, and is no operator) and
// rotate the signing key behind a confirmation, after which tokens
// signed before still work. A person invited to a tenant gets, for the
// operator pages, the page any missing path gets.
func TestConsoleOperator(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			b := ownerSignedIn(t, h)
			if board := b.get("/t/default/"); !strings.Contains(board, `<a class="operator-link" href="/operator/tenants">Operator</a>`) {
				t.Errorf("the owner's board has no Operator link in the header:\n%s", board)
			}
			tenants := b.get("/operator/tenants")
			if !strings.Contains(tenants, `<tr data-tenant="default"><td>default</td><td>Default</td><td>1</td>`) {
				t.Errorf("the tenants page lacks the first tenant with its one member:\n%s", tenants)
			}
			code, _, created := b.submit(tenants, `<form id="create-tenant"`, url.Values{
				"slug": {"initech"}, "name": {"Initech <Ltd>"}, "owner": {"peter"}, "owner_name": {"Peter"}})
			if code != http.StatusOK || !strings.Contains(created, `<tr data-tenant="initech">`) || !strings.Contains(created, "Initech &lt;Ltd&gt;") {
				t.Fatalf("creating initech = %d, want 200 listing it, its name escaped:\n%s", code, created)
			}
			link := ownerLinkRE.FindStringSubmatch(created)
			token := regexp.MustCompile(`<code id="owner-token" class="secret">([^<]+)</code>`).FindStringSubmatch(created)
			if link == nil || token == nil {
				t.Fatalf("the page after creating initech shows no sign-in link or token for its owner:\n%s", created)
			}
			if again := b.get("/operator/tenants"); strings.Contains(again, token[1]) || strings.Contains(again, `id="owner-link"`) {
				t.Error("the tenants page shows the new owner's token or link a second time")
			}
			code, _, body := b.submit(tenants, `<form id="create-tenant"`, url.Values{"slug": {"initech"}, "owner": {"paul"}})
			if code != http.StatusBadRequest || !strings.Contains(body, "exists already") || !strings.Contains(body, `value="paul"`) {
				t.Errorf("creating initech again = %d, want 400 saying it exists, the form kept:\n%s", code, body)
			}

			peter := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignInAs(t, peter, html.UnescapeString(link[1]), "peter@example.com")
			if board := peter.get("/t/initech/"); strings.Contains(board, "operator-link") {
				t.Error("initech's owner, no operator, sees the Operator link")
			}

			code, invited := nodetest.NewAdminClient(t, h).Post(h.OperatorSecret(t), "InvitePerson", `{"tenant":"default","email":"ivy@example.com"}`)
			secret, _ := invited["secret"].(string)
			if code != http.StatusOK || secret == "" {
				t.Fatalf("InvitePerson = %d %v", code, invited)
			}
			ivy := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignInAs(t, ivy, secret, "ivy@example.com")
			_, _, missing := ivy.do("GET", "/no/such/page", nil)
			for _, path := range []string{"/operator/tenants", "/operator/keys", "/operator/keys/rotate"} {
				if code, _, body := ivy.do("GET", path, nil); code != http.StatusNotFound || body != missing {
					t.Errorf("GET %s as ivy, no operator = %d, want 404 as for any missing page:\n%s", path, code, body)
				}
			}
			if code, _, _ := ivy.do("POST", "/operator/keys/rotate", url.Values{"csrf": {csrfOf(t, ivy.get("/account"))}}); code != http.StatusNotFound {
				t.Errorf("POST /operator/keys/rotate as ivy = %d, want 404", code)
			}

			keys := b.get("/operator/keys")
			if !strings.Contains(keys, `data-state="signing"`) {
				t.Errorf("the keys page shows no signing key:\n%s", keys)
			}
			confirm := b.get("/operator/keys/rotate")
			code, _, rotated := b.submit(confirm, `<form id="rotate"`, nil)
			if code != http.StatusOK || !strings.Contains(rotated, "New tokens are signed with key") || !strings.Contains(rotated, `data-state="retired"`) {
				t.Fatalf("rotating = %d, want 200 with the new key and the old one retired:\n%s", code, rotated)
			}
			for name, tok := range map[string]string{"the first start's": h.Token, "initech's owner's": token[1]} {
				if st := nodetest.ToolsListStatus(t, h.Sys.Endpoint, "", tok); st != http.StatusOK {
					t.Errorf("%s token after a rotation: tools/list = %d, want 200", name, st)
				}
			}
			if board := b.get("/t/default/"); !strings.Contains(board, `<main id="board"`) {
				t.Error("the owner's session after a rotation shows no board")
			}
		})
	}
}

// csrfOf is the CSRF token of the first form on page.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := hiddenRE.FindAllStringSubmatch(page, -1)
	for _, f := range m {
		if f[1] == "csrf" {
			return html.UnescapeString(f[2])
		}
	}
	t.Fatalf("the page has no CSRF token:\n%s", page)
	return ""
}
