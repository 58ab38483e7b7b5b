package main

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/node/nodetest"
)

// signInByLink signs in to the console of h by a link printed as
// <public URL>/signin/link?k=SECRET, through the worker as the console's
// front door does, and returns the memberships as "default/owner/OWNER".
func signInByLink(t *testing.T, h *nodetest.Harness, link string) ([]string, error) {
	t.Helper()
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil || u.Path != "/signin/link" || !strings.HasPrefix(link, h.Sys.Config().PublicURL+"/") {
		t.Fatalf("sign-in link %q, want %s/signin/link?k=…", link, h.Sys.Config().PublicURL)
	}
	conn, err := h.Sys.WorkerConn()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := taskwirev1.NewSessionServiceClient(conn).SignIn(context.Background(),
		&taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Link{Link: u.Query().Get("k")}})
	if err != nil {
		return nil, err
	}
	var ms []string
	for _, m := range resp.GetMemberships() {
		ms = append(ms, m.GetTenant()+"/"+m.GetHandle()+"/"+strings.TrimPrefix(m.GetRole().String(), "MEMBER_ROLE_"))
	}
	return ms, nil
}

// TestFirstStartPrintsSignInLink: the first start of serve prints the
// owner's one-time link to the console with the sentence saying so, and
// the link signs the owner in, once.
func TestFirstStartPrintsSignInLink(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	const sentence = "Open this link in your browser to sign in to the console; it works once, for 24 hours.\n"
	i := strings.Index(h.Out, sentence)
	if i < 0 {
		t.Fatalf("the first start does not offer a sign-in link:\n%s", h.Out)
	}
	m := regexp.MustCompile(`^  (\S+)\n`).FindStringSubmatch(h.Out[i+len(sentence):])
	if m == nil {
		t.Fatalf("no link after %q:\n%s", sentence, h.Out)
	}
	ms, err := signInByLink(t, h, m[1])
	if err != nil || strings.Join(ms, " ") != "default/owner/OWNER" {
		t.Errorf("signing in by the printed link = %v, %v; want default/owner/OWNER", ms, err)
	}
	if _, err := signInByLink(t, h, m[1]); err == nil || !strings.Contains(err.Error(), "used already") {
		t.Errorf("signing in by the printed link again = %v, want it refused as used", err)
	}
}

// TestAdminSignInLinkAndInvite: an owner invites a person by email and
// makes a sign-in link with the CLI, each printed alone on stdout; the
// links sign the person in; inviting them again, an admin linking an
// owner, and a lifetime past 7 days are refused in words saying so.
func TestAdminSignInLinkAndInvite(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	owner := h.AdminToken(t, "owner")

	link := a.cliOK(owner, "invite", "--email", "Ann.Lee@Example.com", "--role", "admin", "--name", "Ann Lee")
	if ms, err := signInByLink(t, h, link); err != nil || strings.Join(ms, " ") != "default/ann-lee/ADMIN" {
		t.Errorf("signing in by ann's invitation = %v, %v; want default/ann-lee/ADMIN", ms, err)
	}
	if _, err := a.cli(owner, "invite", "--email", "ann.lee@example.com"); err == nil || !strings.Contains(err.Error(), "member of default already") {
		t.Errorf("invite ann again = %v, want a refusal saying she is a member already", err)
	}

	link = a.cliOK(owner, "signin-link", "--member", "ann-lee", "--ttl", "1h")
	if ms, err := signInByLink(t, h, link); err != nil || strings.Join(ms, " ") != "default/ann-lee/ADMIN" {
		t.Errorf("signing in by ann's sign-in link = %v, %v; want default/ann-lee/ADMIN", ms, err)
	}
	ann := h.AdminToken(t, "ann-lee")
	if _, err := a.cli(ann, "signin-link", "--member", "owner"); err == nil || !strings.Contains(err.Error(), "admins cannot make sign-in links for owners") {
		t.Errorf("an admin's signin-link for the owner = %v, want it refused", err)
	}
	if _, err := a.cli(owner, "signin-link", "--member", "ann-lee", "--ttl", "200h"); err == nil || !strings.Contains(err.Error(), "at most 168h") {
		t.Errorf("signin-link --ttl 200h = %v, want it refused naming the most", err)
	}
	if _, err := a.cli(owner, "signin-link"); err == nil || !strings.Contains(err.Error(), "--member HANDLE") {
		t.Errorf("signin-link without --member = %v, want it asked for", err)
	}
}
