package tests

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/tenantarchive"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestConsoleExport: the owner downloads the tenant's export from the
// Members page, a whole archive holding the board's tasks; a plain member
// is offered no export, and posting the form anyway is refused in the
// service's words.
func TestConsoleExport(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	base := h.Sys.Config().PublicURL
	cs, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Keep a copy of the board"})

	owner := newBrowser(t, base)
	firstSignIn(t, owner, signInLink(t, h, "default", "owner"))
	members := owner.get("/t/default/members")
	i := strings.Index(members, `<form id="export"`)
	if i < 0 {
		t.Fatalf("the owner's Members page offers no export:\n%s", members)
	}
	action := htmlAttr(members[i:], "action")
	csrf := found(t, csrfFieldRE, members[i:], "CSRF field of the export form")
	resp, data := owner.exchange("POST", action, url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/zip" ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename=taskwire-export-default-`) {
		t.Fatalf("the export = %d %v, want a zip attachment:\n%.300s", resp.StatusCode, resp.Header, data)
	}
	path := filepath.Join(t.TempDir(), "export.zip")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := archive.OpenFile(path, tenantarchive.Format)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Verify(); err != nil {
		t.Fatalf("the downloaded export is not whole: %v", err)
	}
	if e, _ := r.Manifest().Entry(tenantarchive.TasksEntry); e.Records != 1 {
		t.Errorf("the export holds %d tasks, want the board's 1", e.Records)
	}

	// A plain member, invited by the owner.
	code, _, invited := owner.submit(members, `<form id="invite"`, url.Values{"email": {"lee@example.com"}, "role": {"member"}})
	if code != http.StatusOK {
		t.Fatalf("inviting = %d:\n%s", code, invited)
	}
	link, _ := url.Parse(found(t, inviteLinkRE, invited, "invitation link"))
	lee := newBrowser(t, base)
	firstSignInAs(t, lee, link.Query().Get("k"), "lee@example.com")
	page := lee.get("/t/default/members")
	if strings.Contains(page, `<form id="export"`) {
		t.Error("a plain member is offered the tenant's export")
	}
	code, _, body := lee.do("POST", action, url.Values{"csrf": {found(t, csrfFieldRE, page, "CSRF field")}})
	if code != http.StatusForbidden || !strings.Contains(body, "needs an owner or admin") {
		t.Errorf("a member's export = %d, want 403 in the service's words:\n%.2000s", code, body)
	}
}

// htmlAttr is the value of the first attribute name in s.
func htmlAttr(s, name string) string {
	_, rest, _ := strings.Cut(s, name+`="`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}
