package tests

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

var (
	inviteLinkRE = regexp.MustCompile(`id="invite-link" type="text" readonly value="([^"]+)"`)
	newTokenRE   = regexp.MustCompile(`id="new-token" type="text" readonly value="([^"]+)"`)
	csrfFieldRE  = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	// ownerTokenRE finds the id of a live token of the member "owner" in
	// the Tokens page's table.
	ownerTokenRE = regexp.MustCompile(`<tr data-token="([^"]+)" data-state="live">\s*<td>[^<]*</td>\s*<td>owner</td>`)
)

// found is the first submatch of re in page, or the test fails saying what.
func found(t *testing.T, re *regexp.Regexp, page, what string) string {
	t.Helper()
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page shows no %s:\n%s", what, page)
	}
	return html.UnescapeString(m[1])
}

// TestConsolePeople: the owner invites a person on the Members page,
// whose link signs them in; that plain member adds an assistant they
// sponsor, mints it a token that works on the MCP endpoint and revokes
// it, and can neither see nor revoke the owner's tokens nor change
// roles; a change without the form's CSRF token is refused. On SQLite
// and PostgreSQL.
func TestConsolePeople(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			base := h.Sys.Config().PublicURL
			owner := newBrowser(t, base)
			firstSignIn(t, owner, signInLink(t, h, "default", "owner"))

			members := owner.get("/t/default/members")
			code, _, invited := owner.submit(members, `<form id="invite"`, url.Values{"email": {"mia@example.com"}, "name": {"Mia"}, "role": {"member"}})
			if code != http.StatusOK {
				t.Fatalf("inviting = %d, want 200:\n%s", code, invited)
			}
			link, err := url.Parse(found(t, inviteLinkRE, invited, "invitation link"))
			if err != nil || !strings.HasPrefix(link.String(), base+"/signin/link?k=") {
				t.Fatalf("the invitation link is %v (%v), want one of %s/signin/link", link, err, base)
			}
			mia := newBrowser(t, base)
			firstSignInAs(t, mia, link.Query().Get("k"), "mia@example.com")
			page := mia.get("/t/default/members")
			if strings.Contains(page, `<form id="invite"`) || strings.Contains(page, `class="set-role"`) {
				t.Error("a plain member is offered to invite or change roles")
			}

			// Mia's own assistant, and a token for it.
			if code, loc, body := mia.submit(page, `<form id="add-assistant"`, url.Values{"handle": {"mia-bot"}, "name": {"Mia's bot"}}); code != http.StatusSeeOther || loc != "/t/default/members" {
				t.Fatalf("adding an assistant = %d to %q, want 303 to the Members page:\n%s", code, loc, body)
			}
			if page = mia.get("/t/default/members"); !strings.Contains(page, `<tr data-member="mia-bot" data-kind="assistant">`) {
				t.Fatalf("the Members page does not list mia-bot:\n%s", page)
			}
			tokens := mia.get("/t/default/tokens")
			code, _, created := mia.submit(tokens, `<form id="create-token"`, url.Values{"member": {"mia-bot"}, "label": {"bot"}, "scope": {"read", "comment", "write"}, "days": {"7"}})
			if code != http.StatusOK {
				t.Fatalf("minting = %d, want 200:\n%s", code, created)
			}
			botToken := found(t, newTokenRE, created, "new token")
			cs, _ := h.Client(t, botToken, nil)
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Made with a console token"})

			// Only her own and her assistant's tokens, and no roles.
			ownerToken := found(t, ownerTokenRE, owner.get("/t/default/tokens"), "live token of owner")
			if tokens = mia.get("/t/default/tokens"); strings.Contains(tokens, ownerToken) || !strings.Contains(tokens, "<td>mia-bot</td>") {
				t.Errorf("mia's Tokens page shows the owner's token %s, or not her assistant's:\n%s", ownerToken, tokens)
			}
			csrf := found(t, csrfFieldRE, tokens, "CSRF field")
			if code, _, body := mia.do("POST", "/t/default/tokens/"+ownerToken+"/revoke", url.Values{"csrf": {csrf}}); code != http.StatusForbidden ||
				!strings.Contains(body, "You may revoke tokens of yourself and the assistants you sponsor only") {
				t.Errorf("mia revoking the owner's token = %d, want 403 saying why:\n%s", code, body)
			}
			if st := h.MCPStatus(t, h.Token); st != http.StatusOK {
				t.Errorf("the owner's token after mia's attempt = %d, want 200", st)
			}
			if code, _, body := mia.do("POST", "/t/default/members/mia-bot/role", url.Values{"csrf": {csrf}, "role": {"viewer"}}); code != http.StatusForbidden ||
				!strings.Contains(body, "needs an owner or admin of default") {
				t.Errorf("mia changing a role = %d, want 403 saying who may:\n%s", code, body)
			}
			if code, _, _ := mia.do("POST", "/t/default/tokens", url.Values{"member": {"mia-bot"}, "scope": {"read"}, "days": {"1"}}); code != http.StatusForbidden {
				t.Errorf("minting without the CSRF token = %d, want 403", code)
			}

			// The owner may not make an assistant admin: the service's sentence.
			code, _, body := owner.submit(owner.get("/t/default/members"), `<tr data-member="mia-bot"`, url.Values{"role": {"admin"}})
			if code != http.StatusBadRequest || !strings.Contains(body, "mia-bot is an assistant, and assistants are at most members") {
				t.Errorf("making an assistant admin = %d, want 400 with the service's sentence:\n%s", code, body)
			}

			// Mia revokes her assistant's token: the MCP endpoint refuses it.
			code, _, _ = mia.submit(mia.get("/t/default/tokens"), `<tr data-token=`, nil)
			if st := h.MCPStatus(t, botToken); code != http.StatusSeeOther || st != http.StatusUnauthorized {
				t.Errorf("revoking = %d, then the token's tools/list = %d; want 303, then 401", code, st)
			}
		})
	}
}
