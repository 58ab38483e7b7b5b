package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// asRole makes the session's member one of role.
func asRole(w *fakeWorker, role taskwirev1.MemberRole) {
	m := proto.CloneOf(membership)
	m.Role = role
	w.member = m
}

// TestMembersPageForAViewer: a viewer sees everyone and may add an
// assistant of their own, as a viewer, and nothing else.
func TestMembersPageForAViewer(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	resp := e.do("GET", "/t/acme/members", nil, session)
	page := resp.Body.String()
	for _, want := range []string{
		`<tr data-member="olga" data-kind="person">`, `<td class="role">owner</td>`,
		`<tr data-member="bot" data-kind="assistant">`, `&lt;script&gt;alert(1)&lt;/script&gt;`,
		`<td>ada (you)</td>`, `<form id="add-assistant"`, `<option value="viewer">viewer</option>`,
		`href="/t/acme/members">Members</a>`, `href="/t/acme/tokens">Tokens</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the Members page lacks %s", want)
		}
	}
	for _, unwanted := range []string{hostileTitle, `<form id="invite"`, `class="set-role"`, `class="remove"`, `<option value="member">member</option>`} {
		if strings.Contains(page, unwanted) {
			t.Errorf("a viewer's Members page has %s", unwanted)
		}
	}
	add := e.do("POST", "/t/acme/members/assistants", url.Values{"csrf": {csrf}, "handle": {"ada-claude"}, "name": {"Claude"}, "role": {"viewer"}}, session)
	if add.Code != http.StatusSeeOther || add.Header().Get("Location") != "/t/acme/members" {
		t.Fatalf("adding an assistant = %d to %q, want 303 to the Members page", add.Code, add.Header().Get("Location"))
	}
	if member, kind := e.worker.admin.lastIdentity(); member != 7 || kind != identity.KindSession {
		t.Errorf("AddMember was called as member %d with %q, want member 7 with a session", member, kind)
	}
	page = e.do("GET", "/t/acme/members", nil, session).Body.String()
	if !strings.Contains(page, `<tr data-member="ada-claude" data-kind="assistant">`) || !strings.Contains(page, `<td>ada</td>`) {
		t.Errorf("the new assistant, sponsored by ada, is not listed:\n%s", page)
	}
	taken := e.do("POST", "/t/acme/members/assistants", url.Values{"csrf": {csrf}, "handle": {"ada-claude"}}, session)
	if taken.Code != http.StatusConflict || !strings.Contains(taken.Body.String(), "The handle ada-claude is taken: pick another.") ||
		!strings.Contains(taken.Body.String(), `<form id="add-assistant"`) {
		t.Errorf("adding a taken handle = %d, want 409 with the service's sentence on the Members page", taken.Code)
	}
}

// TestMembersPageForAnOwner: an owner invites (the link shown once, with
// a copy button), changes roles (the service's refusal shown), and
// removes only once the box is ticked.
func TestMembersPageForAnOwner(t *testing.T) {
	e := newEnv(t, nil)
	asRole(e.worker, taskwirev1.MemberRole_MEMBER_ROLE_OWNER)
	session, csrf := e.signIn()
	inv := e.do("POST", "/t/acme/members/invite", url.Values{"csrf": {csrf}, "email": {"pat@example.com"}, "role": {"member"}}, session)
	page := inv.Body.String()
	link := `value="http://127.0.0.1:8080/signin/link?k=` + fakeInvite + `"`
	if inv.Code != http.StatusOK || !strings.Contains(page, link) || !strings.Contains(page, `data-copy="invite-link"`) {
		t.Fatalf("inviting = %d, want the page with the link %s and a copy button:\n%s", inv.Code, link, page)
	}
	if cc := inv.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the invitation's page has Cache-Control %q, want no-store", cc)
	}
	if strings.Contains(e.do("GET", "/t/acme/members", nil, session).Body.String(), fakeInvite) {
		t.Error("the invitation link is shown again on the next visit")
	}

	bad := e.do("POST", "/t/acme/members/bot/role", url.Values{"csrf": {csrf}, "role": {"admin"}}, session)
	if bad.Code != http.StatusBadRequest || !strings.Contains(bad.Body.String(), "bot is an assistant, and assistants are at most members: pick member or viewer.") {
		t.Errorf("making an assistant admin = %d, want 400 with the service's sentence", bad.Code)
	}
	ok := e.do("POST", "/t/acme/members/bot/role", url.Values{"csrf": {csrf}, "role": {"viewer"}}, session)
	if ok.Code != http.StatusSeeOther {
		t.Errorf("making an assistant viewer = %d, want 303", ok.Code)
	}

	unconfirmed := e.do("POST", "/t/acme/members/bot/remove", url.Values{"csrf": {csrf}}, session)
	if unconfirmed.Code != http.StatusBadRequest || !strings.Contains(unconfirmed.Body.String(), `<tr data-member="bot"`) {
		t.Errorf("removing without the confirmation = %d, want 400 with bot still listed", unconfirmed.Code)
	}
	removed := e.do("POST", "/t/acme/members/bot/remove", url.Values{"csrf": {csrf}, "confirm": {"yes"}}, session)
	if removed.Code != http.StatusSeeOther {
		t.Fatalf("removing with the confirmation = %d, want 303", removed.Code)
	}
	if strings.Contains(e.do("GET", "/t/acme/members", nil, session).Body.String(), `<tr data-member="bot"`) {
		t.Error("bot is still listed after its removal")
	}
}

// TestMembersChangesNeedCSRF: a change without the form's token changes
// nothing.
func TestMembersChangesNeedCSRF(t *testing.T) {
	e := newEnv(t, nil)
	asRole(e.worker, taskwirev1.MemberRole_MEMBER_ROLE_OWNER)
	session, _ := e.signIn()
	resp := e.do("POST", "/t/acme/members/bot/remove", url.Values{"confirm": {"yes"}}, session)
	if member, _ := e.worker.admin.lastIdentity(); resp.Code != http.StatusForbidden || member != 0 {
		t.Errorf("removing without a CSRF token = %d (admin called as %d), want 403 and no call", resp.Code, member)
	}
}
