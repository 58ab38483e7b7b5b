package tests

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// decider answers an assistant's URL-mode elicitations the way its person
// does: opening the decision's page in the console and pressing Approve
// or Decline there, with a reason.
type decider struct {
	t      *testing.T
	p      *person
	choice string // "approve" or "decline"
	reason string
	urls   []string // every URL the assistant was sent to
	// watchInbox: the person has the inbox open when the next question
	// comes, and sees it arrive there.
	watchInbox bool
	// shot names the decision page's screenshot; "" for "decision".
	shot string
	// sees, if set, checks what the person reads on the decision page
	// before deciding.
	sees func()
}

// elicit is the assistant's elicitation handler.
func (d *decider) elicit(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	d.urls = append(d.urls, r.Params.URL)
	if r.Params.Mode != "url" {
		d.t.Errorf("elicitation mode = %q, want url: only a person in the console may decide", r.Params.Mode)
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	u, err := url.Parse(r.Params.URL)
	if err != nil || u.Scheme+"://"+u.Host != d.p.site.base || !strings.HasPrefix(u.Path, "/t/"+d.p.site.tenant+"/decisions/") {
		d.t.Errorf("elicitation URL = %q, want a decision page of %s under %s", r.Params.URL, d.p.site.tenant, d.p.site.base)
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	if d.watchInbox {
		// The person has the inbox open: the question arrives by itself.
		id := u.Path[strings.LastIndex(u.Path, "/")+1:]
		d.p.waitFor("the pending decision in the inbox", `!!document.querySelector(`+jsString(`ul#decisions > li[data-decision="`+id+`"][data-state="pending"]`)+`)`)
		if d.p.eval(`window.taskwireTestMark || 0`) != 1 {
			d.t.Error("the inbox reloaded to show the new decision, want it shown in place")
		}
		if d.p.count("#inbox p.empty") != 0 {
			d.t.Error(`the inbox still says "Nothing is waiting for a decision." beside the new one`)
		}
		d.p.checkPage("the decisions inbox", "")
		d.watchInbox = false
	}
	d.p.open(u.RequestURI())
	shot := d.shot
	if shot == "" {
		shot = "decision"
	}
	if d.sees != nil {
		d.sees()
	}
	d.p.checkPage("the decision page", shot)
	d.p.submit("form#decide", map[string]string{"reason": d.reason}, `button[name="decision"][value="`+d.choice+`"]`)
	return &mcp.ElicitResult{Action: "accept"}, nil
}

// TestBrowserDecisions: an assistant's tasks_delete waits for a person:
// the assistant is sent to the decision's page in the console, where the
// owner declines it (and the retry is refused with her reason, the task
// kept), then approves the next (and the retry deletes the task). The
// first question shows up in the inbox she has open without a reload; the
// inbox then lists both with their state.
func TestBrowserDecisions(t *testing.T) {
	s, _ := embeddedSite(t, nodetest.Setups()[0])
	p := signedIn(t, s)
	d := &decider{t: t, p: p}
	bot := s.assistant(t, "bot", &mcp.ClientOptions{
		ElicitationHandler: d.elicit,
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
	})
	nodetest.CallOK(t, bot, "tasks_create", map[string]any{"title": "Old plan"})
	ctx := context.Background()

	p.open("/t/" + s.tenant + "/decisions")
	p.waitFor("the live stream to connect", `document.body.dataset.live === "connected"`)
	if err := chromedp.Do(p.ctx, chromedp.Evaluate[chromedp.Void](`window.taskwireTestMark = 1`)); err != nil {
		t.Fatal(err)
	}
	d.watchInbox = true
	d.choice, d.reason = "decline", "Keep it: the retro refers to it."
	res, err := bot.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_delete", Arguments: map[string]any{"ref": "T-1"}})
	if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), d.reason) {
		t.Errorf("tasks_delete declined in the console = %v, %v; want an isError result with the reason %q", res, err, d.reason)
	}
	if got := p.text("p#decision-state"); !strings.Contains(got, "Declined") || !strings.Contains(got, d.reason) {
		t.Errorf("decision page after declining says %q, want Declined with the reason", got)
	}
	nodetest.CallOK(t, bot, "tasks_get", map[string]any{"ref": "T-1"}) // still there

	d.choice, d.reason = "approve", "Superseded by T-2."
	deleted := nodetest.CallOK(t, bot, "tasks_delete", map[string]any{"ref": "T-1"})
	if deleted["task"].(map[string]any)["ref"] != "T-1" {
		t.Errorf("tasks_delete approved in the console = %v, want T-1 deleted", deleted)
	}
	if len(d.urls) != 2 || d.urls[0] == d.urls[1] {
		t.Errorf("the assistant was sent to %q, want two decision pages, one for each call", d.urls)
	}

	p.open("/t/" + s.tenant + "/decisions")
	states, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("ul#decisions > li[data-decision]")].map(li => li.dataset.state).sort()`))
	if err != nil || !slices.Equal(states, []string{"declined", "used"}) {
		t.Errorf("the inbox lists decisions in states %v, %v; want one declined and one used", states, err)
	}
	p.checkPage("the decisions inbox", "decisions")
}
