package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestConsoleApprovesAssistantDelete: an assistant's tasks_delete shows
// its client the decision's console page; the owner, signed in, opens
// that page, sees the question and who asked, and presses Approve; the
// assistant's call then deletes the task. On SQLite and PostgreSQL.
func TestConsoleApprovesAssistantDelete(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			base := h.Sys.Config().PublicURL
			person := newBrowser(t, base)
			firstSignIn(t, person, signInLink(t, h, "default", "owner"))
			bot, err := tenancy.AddMember(context.Background(), h.Sys.DB, "default", tenancy.MemberSpec{
				Handle: "bot", Name: "Helper Bot", Kind: member.KindAssistant, SponsorHandle: "owner"})
			if err != nil {
				t.Fatal(err)
			}
			boss, _ := h.Client(t, h.Token, nil)
			ref := nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Obsolete plan"})["task"].(map[string]any)["ref"].(string)

			var mu sync.Mutex
			var shown []string
			// The person's part, when the assistant's client shows the page.
			approve := func(pageURL string) {
				path := strings.TrimPrefix(pageURL, base)
				page := person.get(path)
				if !strings.Contains(page, "Helper Bot (bot), assistant sponsored by owner") || !strings.Contains(page, `data-state="pending"`) {
					t.Errorf("the decision page does not show who asked, pending:\n%s", page)
				}
				if code, loc, body := person.submit(page, `<form id="decide"`, url.Values{"decision": {"approve"}}); code != http.StatusSeeOther || loc != path {
					t.Errorf("approving = %d to %q, want 303 back to %s:\n%s", code, loc, path, body)
				}
			}
			botToken := nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, "default", bot.ID, authz.AllScopes)
			cs, _ := h.Client(t, botToken, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					shown = append(shown, r.Params.URL)
					mu.Unlock()
					approve(r.Params.URL)
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
			})
			deleted := nodetest.CallOK(t, cs, "tasks_delete", map[string]any{"ref": ref})
			if deleted["task"].(map[string]any)["ref"] != ref {
				t.Errorf("tasks_delete after the console's approval = %v, want %s deleted", deleted, ref)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(shown) != 1 || !strings.HasPrefix(shown[0], base+"/t/default/decisions/") {
				t.Fatalf("pages shown to the assistant's client = %v, want one decision page of the console", shown)
			}
			id := shown[0][strings.LastIndex(shown[0], "/")+1:]
			inbox := person.get("/t/default/decisions")
			if !strings.Contains(inbox, `<li data-decision="`+id+`" data-state="used">`) {
				t.Errorf("the inbox does not list decision %s as used:\n%s", id, inbox)
			}
		})
	}
}
