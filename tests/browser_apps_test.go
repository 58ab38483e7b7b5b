package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// appsHostDir holds the test host of MCP Apps: host.html, the host's
// script host.js (the ext-apps SDK's AppBridge, bundled from
// tests/appshost by `go generate ./tests`), and the sandbox proxy's page.
const appsHostDir = "testdata/appshost"

// appsClientMeta is the _meta of the host's requests: 2026-07-28, form
// elicitation (the host asks the person to confirm) and URL elicitation
// (the view shows the person the way to a decision's page), and the extension
// io.modelcontextprotocol/ui declared with the view's MIME type, as a
// host of MCP Apps declares it.
const appsClientMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` +
	`{"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}`

// appsHost is the test's chat host for one person: its page, and the
// MCP requests the page makes, which it sends to Taskwire with the
// person's token.
type appsHost struct {
	url     string // the host page's origin
	sandbox string // the sandbox proxy's origin, another one
	// noContext makes the host one that takes no model context from a
	// view (ui/update-model-context), only messages (ui/message).
	noContext bool
}

// newAppsHost serves the host page for the person of token on s, and the
// sandbox proxy on another origin.
func newAppsHost(t *testing.T, s *site, token string) appsHost {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /host.html", serveAppsFile("host.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /host.js", serveAppsFile("host.js", "text/javascript"))
	mux.HandleFunc("POST /mcp/{method...}", func(w http.ResponseWriter, r *http.Request) {
		proxyMCP(t, w, r, s, token)
	})
	host := httptest.NewServer(mux)
	t.Cleanup(host.Close)
	sandbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/sandbox.html" {
			http.NotFound(w, r)
			return
		}
		var csp appsCSP
		if err := json.Unmarshal([]byte(r.URL.Query().Get("csp")), &csp); err != nil {
			http.Error(w, "csp: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Security-Policy", csp.header())
		serveAppsFile("sandbox.html", "text/html; charset=utf-8")(w, r)
	}))
	t.Cleanup(sandbox.Close)
	return appsHost{url: host.URL, sandbox: sandbox.URL}
}

func serveAppsFile(name, mime string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(appsHostDir, name))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", mime)
		w.Write(b)
	}
}

// proxyMCP sends the page's request (the method in the path, the params
// in the body) to s's MCP endpoint as a 2026-07-28 request with token,
// and answers the JSON-RPC response.
func proxyMCP(t *testing.T, w http.ResponseWriter, r *http.Request, s *site, token string) {
	method := r.PathValue("method")
	var params map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&params); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	params["_meta"] = json.RawMessage(appsClientMeta)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	var name string
	switch method {
	case "tools/call":
		json.Unmarshal(params["name"], &name)
	case "resources/read":
		json.Unmarshal(params["uri"], &name)
	}
	req := nodetest.MCPRequest(t, s.endpoint, token, method, name, string(body)).WithContext(r.Context())
	resp, err := s.mcpVia.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw = lastEventData(raw)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(raw)
}

// lastEventData is the data of the last event of an SSE body: the
// response, after any notifications.
func lastEventData(body []byte) []byte {
	var last []byte
	for line := range strings.SplitSeq(string(body), "\n") {
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			last = []byte(strings.TrimSpace(d))
		}
	}
	return last
}

// appsCSP is a view's _meta.ui.csp.
type appsCSP struct {
	ConnectDomains  []string `json:"connectDomains"`
	ResourceDomains []string `json:"resourceDomains"`
	FrameDomains    []string `json:"frameDomains"`
	BaseURIDomains  []string `json:"baseUriDomains"`
}

// header is the Content-Security-Policy the ext-apps SDK's example host
// puts on its sandbox page for csp (examples/basic-host, csp.ts): the
// declared domains added to 'self' and inline code, frames and plugins
// refused unless declared.
func (c appsCSP) header() string {
	clean := func(ds []string) string {
		var ok []string
		for _, d := range ds {
			if !strings.ContainsAny(d, ";\r\n'\" ") {
				ok = append(ok, d)
			}
		}
		return strings.Join(ok, " ")
	}
	res, conn := clean(c.ResourceDomains), clean(c.ConnectDomains)
	frame, base := "'none'", "'none'"
	if f := clean(c.FrameDomains); f != "" {
		frame = f
	}
	if b := clean(c.BaseURIDomains); b != "" {
		base = b
	}
	ds := []string{
		"default-src 'self' 'unsafe-inline'",
		"script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: " + res,
		"style-src 'self' 'unsafe-inline' blob: data: " + res,
		"img-src 'self' data: blob: " + res,
		"font-src 'self' data: blob: " + res,
		"media-src 'self' data: blob: " + res,
		"connect-src 'self' " + conn,
		"worker-src 'self' blob: " + res,
		"frame-src " + frame,
		"object-src 'none'",
		"base-uri " + base,
	}
	for i, d := range ds {
		ds[i] = strings.TrimSpace(d)
	}
	return strings.Join(ds, "; ")
}

// viewState is what the sandbox proxy reads of the view's page.
type viewState struct {
	Busy       bool
	Heading    string
	Flash      string
	Cards      []struct{ Ref, Lane, Title string }
	Text       string
	Images     int
	DocTitle   string
	Violations []string
}

func (v viewState) laneOf(ref string) string {
	for _, c := range v.Cards {
		if c.Ref == ref {
			return c.Lane
		}
	}
	return ""
}

// appsPage is the host page in the browser, showing one tool's view.
type appsPage struct {
	t   *testing.T
	ctx context.Context
}

// openApp opens the host page of h, where the person asked ask and the
// host called tool with args and shows its view, and waits for the view to have shown the result.
func openApp(t *testing.T, ctx context.Context, h appsHost, ask, tool string, args map[string]any) *appsPage {
	t.Helper()
	a, _ := json.Marshal(args)
	q := url.Values{"ask": {ask}, "tool": {tool}, "args": {string(a)}, "sandbox": {h.sandbox}}
	if h.noContext {
		q.Set("context", "no")
	}
	u := h.url + "/host.html?" + q.Encode()
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	p := &appsPage{t, ctx}
	poll.Until(t, pageWait, "the host to load the view of "+tool, func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(window.appsHost && (appsHost.error || appsHost.initialized && appsHost.probe))`))
		return err == nil && ok
	})
	if msg := p.eval(`appsHost.error`); msg != "" {
		t.Fatalf("the host could not show the view of %s: %s", tool, msg)
	}
	return p
}

// eval evaluates a JavaScript expression of a string in the host page.
func (p *appsPage) eval(expr string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return s
}

// probe asks the sandbox proxy what about the view and decodes the
// answer into v.
func (p *appsPage) probe(what string, args map[string]any, v any) {
	p.t.Helper()
	a, _ := json.Marshal(args)
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](
		`appsHost.probe(`+jsString(what)+`, `+string(a)+`).then(JSON.stringify)`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("probe %s: %v", what, err)
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		p.t.Fatalf("probe %s = %s: %v", what, raw, err)
	}
}

// state is the view as it is now.
func (p *appsPage) state() viewState {
	p.t.Helper()
	var v viewState
	p.probe("state", nil, &v)
	return v
}

// waitState waits until cond holds of the view, and returns it then.
func (p *appsPage) waitState(what string, cond func(viewState) bool) viewState {
	p.t.Helper()
	var v viewState
	waited := false
	defer func() {
		if !waited { // poll.Until gave up
			p.t.Logf("the view, last seen: %+v; the host's error: %q", v, p.eval(`appsHost.error`))
		}
	}()
	poll.Until(p.t, pageWait, what, func() bool {
		v = p.state()
		return !v.Busy && cond(v)
	})
	waited = true
	return v
}

// center is where the element of the view sel matches is, in the host
// page.
func (p *appsPage) center(sel string) (float64, float64) {
	p.t.Helper()
	var c *struct{ X, Y float64 }
	p.probe("center", map[string]any{"selector": sel}, &c)
	if c == nil {
		p.t.Fatalf("the view has no %s", sel)
	}
	var off struct{ X, Y float64 }
	raw := p.eval(`JSON.stringify((function(){var b=document.getElementById("view").getBoundingClientRect();return {x:b.left,y:b.top};})())`)
	json.Unmarshal([]byte(raw), &off)
	return off.X + c.X, off.Y + c.Y
}

// checkAxe fails t with every serious or critical accessibility
// violation axe finds in the view, named name in the failure.
func (p *appsPage) checkAxe(name string) {
	p.t.Helper()
	src, err := axeSource()
	if err != nil {
		p.t.Fatal(err)
	}
	var vs []axeViolation
	p.probe("axe", map[string]any{"src": src}, &vs)
	for _, v := range vs {
		p.t.Errorf("axe on the %s view: %v", name, v)
	}
}

// hostCalls are the tools the view called through the host, as
// "name" or "name!" for a result with isError.
func (p *appsPage) hostCalls() []string {
	var calls []string
	json.Unmarshal([]byte(p.eval(`JSON.stringify(appsHost.calls.map(function(c){return c.name+(c.isError?"!":"")}))`)), &calls)
	return calls
}

// hostile is a title that would run script if a view put it in as HTML.
const hostile = `<img src=x onerror="document.title='pwned'">`

// TestBrowserApps: the views of MCP Apps, read from `taskwire serve` by a
// host page built on the ext-apps SDK's AppBridge, in Chromium, each
// passing axe. The board view shows the seeded cards, a hostile title as
// text, and filters them; the owner's drag moves a card through
// tools/call over the bridge, which an MCP client then reads, and the view
// tells the model (or, on a host without model context, sends a
// message); the view's CSP, applied
// by the host from the resource's _meta.ui.csp, refuses a fetch to
// another origin; a viewer's move is refused, and the view shows the
// server's sentence. The task view shows the history in the console's
// sentences, comments and approves work; its delete
// is put to the person by the host (declined, then confirmed). The
// decision card shows a delete the model asked for, and restores it; an
// assistant's delete shows pending, with the way to the decision's page
// (ui/open-link), and deleted once a person approved it in the console;
// an assistant's work shows its plan pending, and the person's reason
// once they declined it there.
func TestBrowserApps(t *testing.T) {
	s, h := embeddedSite(t, nodetest.Setups()[0])
	owner, _ := h.Client(t, h.Token, nil)
	for _, title := range []string{"Write the launch plan", "Book the venue for the retro", hostile} {
		nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": title})
	}
	nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Fix the login redirect loop", "lane": "next", "kind": "bug", "size": "xs"})
	vera, err := tenancy.AddMember(context.Background(), s.db, s.tenant, tenancy.MemberSpec{Handle: "vera", Name: "Vera", Role: member.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	viewerToken := nodetest.RecordToken(t, s.db, s.issuer, s.tenant, vera.ID, authz.AllScopes)
	ctx := startChromium(t)

	p := openApp(t, ctx, newAppsHost(t, s, h.Token), "Show me the board.", "boards_get", map[string]any{})
	v := p.waitState("the board's cards in the view", func(v viewState) bool { return len(v.Cards) == 4 })
	for ref, lane := range map[string]string{"T-1": "backlog", "T-2": "backlog", "T-3": "backlog", "T-4": "next"} {
		if got := v.laneOf(ref); got != lane {
			t.Errorf("the view shows %s in %q, want %s (cards %v)", ref, got, lane, v.Cards)
		}
	}
	p.checkAxe("board")
	t.Run("hostile title stays text", func(t *testing.T) {
		v := p.state()
		var title string
		for _, c := range v.Cards {
			if c.Ref == "T-3" {
				title = c.Title
			}
		}
		if title != hostile || v.Images != 0 || v.DocTitle == "pwned" {
			t.Errorf("T-3's title shows as %q with %d images in the view (title %q), want the text %q and no image", title, v.Images, v.DocTitle, hostile)
		}
	})

	t.Run("drag moves a card through the host", func(t *testing.T) {
		fx, fy := p.center(`article.card[data-ref="T-1"] .card-title`)
		tx, ty := p.center(`section.lane[data-lane="doing"]`)
		if err := chromedp.Do(ctx, chromedp.DragAndDropXY(fx, fy, tx, ty)); err != nil {
			t.Fatalf("dragging T-1 to doing: %v", err)
		}
		p.waitState("T-1 in doing after the drag", func(v viewState) bool { return v.laneOf("T-1") == "doing" })
		if got := laneOf(t, owner, "T-1"); got != "doing" {
			t.Errorf("T-1 dragged to doing in the view is in %q, want doing", got)
		}
		if calls := p.hostCalls(); !strings.Contains(strings.Join(calls, " "), "tasks_move") {
			t.Errorf("the view's calls through the host = %v, want a tasks_move", calls)
		}
		told := p.eval(`JSON.stringify(appsHost.modelContext)`)
		if !strings.Contains(told, "moved T-1 from backlog to doing") {
			t.Errorf("the view told the model %s, want that the person moved T-1 from backlog to doing", told)
		}
		screenshot(t, ctx, "apps-board")
	})

	t.Run("filters", func(t *testing.T) {
		var ok bool
		p.probe("fill", map[string]any{"selector": `#filters input[name="q"]`, "value": "launch"}, &ok)
		p.probe("click", map[string]any{"selector": "#filters button"}, &ok)
		p.waitState("only T-1 with the text filter", func(v viewState) bool { return len(v.Cards) == 1 && v.Cards[0].Ref == "T-1" })
		p.probe("fill", map[string]any{"selector": `#filters input[name="q"]`, "value": ""}, &ok)
		p.probe("click", map[string]any{"selector": "#filters button"}, &ok)
		p.waitState("every card without the filter", func(v viewState) bool { return len(v.Cards) == 4 })
	})

	t.Run("CSP refuses another origin", func(t *testing.T) {
		var got string
		p.probe("fetch", map[string]any{"url": s.base + "/healthz"}, &got)
		if !strings.HasPrefix(got, "refused") {
			t.Errorf("the view's fetch of %s/healthz: %s, want it refused by the CSP", s.base, got)
		}
		violations := strings.Join(p.state().Violations, "; ")
		if !strings.Contains(violations, "connect-src") {
			t.Errorf("CSP violations in the view = %q, want the fetch's connect-src", violations)
		}
		// The same fetch to the view's own origin goes through: it was
		// the CSP that refused.
		p.probe("fetch", map[string]any{"url": "/sandbox.html?csp=%7B%7D"}, &got)
		if got != "fetched 200" {
			t.Errorf("the view's fetch of its own origin: %s, want fetched 200", got)
		}
	})

	t.Run("Move button, and a host without model context", func(t *testing.T) {
		host := newAppsHost(t, s, h.Token)
		host.noContext = true
		mp := openApp(t, ctx, host, "Show me the board.", "boards_get", map[string]any{})
		mp.waitState("the board in the view", func(v viewState) bool { return len(v.Cards) == 4 })
		var ok bool
		mp.probe("move", map[string]any{"ref": "T-2", "lane": "next"}, &ok)
		mp.waitState("T-2 in next after Move", func(v viewState) bool { return v.laneOf("T-2") == "next" })
		if got := laneOf(t, owner, "T-2"); got != "next" {
			t.Errorf("T-2 moved to next with its Move button is in %q, want next", got)
		}
		said := mp.eval(`JSON.stringify({context: appsHost.modelContext, messages: appsHost.messages})`)
		if !strings.Contains(said, `"context":[]`) || !strings.Contains(said, "moved T-2 from backlog to next") {
			t.Errorf("the view told a host without model context %s, want a message that the person moved T-2 from backlog to next", said)
		}
		nodetest.CallOK(t, owner, "tasks_move", map[string]any{"ref": "T-2", "lane": "backlog"})
	})

	t.Run("viewer's move refused", func(t *testing.T) {
		vp := openApp(t, ctx, newAppsHost(t, s, viewerToken), "Show me the board.", "boards_get", map[string]any{})
		vp.waitState("the board in the viewer's view", func(v viewState) bool { return len(v.Cards) == 4 })
		var ok bool
		vp.probe("move", map[string]any{"ref": "T-2", "lane": "next"}, &ok)
		if !ok {
			t.Fatal("the view has no card T-2 to move")
		}
		want := fmt.Sprintf("You are a viewer on tenant %s, and viewers can only read: you cannot move a task (tasks_move needs write).", s.tenant)
		v := vp.waitState("the server's refusal in the view", func(v viewState) bool { return v.Flash != "" })
		if !strings.Contains(v.Flash, want) || v.laneOf("T-2") != "backlog" {
			t.Errorf("after the viewer's move the view says %q and shows T-2 in %q; want %q and T-2 in backlog", v.Flash, v.laneOf("T-2"), want)
		}
		if got := laneOf(t, owner, "T-2"); got != "backlog" {
			t.Errorf("T-2 is in %q after the viewer's refused move, want backlog", got)
		}
		if calls := strings.Join(vp.hostCalls(), " "); !strings.Contains(calls, "tasks_move!") {
			t.Errorf("the viewer's calls through the host = %s, want tasks_move refused (isError)", calls)
		}
	})

	t.Run("task card", func(t *testing.T) {
		tp := openApp(t, ctx, newAppsHost(t, s, h.Token), "What is T-1 about?", "tasks_get", map[string]any{"ref": "T-1"})
		// The history reads as the console's History does: its sentences,
		// written once by the board (the entries' summary).
		v := tp.waitState("T-1's card with its history", func(v viewState) bool {
			return strings.Contains(v.Heading, "Write the launch plan") && strings.Contains(v.Text, "moved T-1 from backlog to doing")
		})
		if !strings.Contains(v.Text, "created T-1 in backlog") || strings.Contains(v.Text, "task moved") || strings.Contains(v.Text, "task.moved") {
			t.Errorf("the task view's history reads %q, want the console's sentences (created T-1 in backlog, moved T-1 from backlog to doing), not the raw entries", v.Text)
		}
		const comment = "Outline agreed with the team."
		var ok bool
		tp.probe("fill", map[string]any{"selector": "#comment-body", "value": comment}, &ok)
		tp.probe("click", map[string]any{"selector": "#comment button"}, &ok)
		if !ok {
			t.Fatal("the task view has no comment form")
		}
		tp.waitState("the comment in the task view", func(v viewState) bool { return strings.Contains(v.Text, comment) })
		got := nodetest.CallOK(t, owner, "comments_list", map[string]any{"ref": "T-1"})
		if items, _ := got["items"].([]any); len(items) != 1 || items[0].(map[string]any)["body"] != comment {
			t.Errorf("comments_list T-1 = %v, want the comment made in the view", got)
		}
		if told := tp.eval(`JSON.stringify(appsHost.modelContext)`); !strings.Contains(told, "commented on T-1") {
			t.Errorf("the task view told the model %s, want that the person commented on T-1", told)
		}
		// The person approves T-1 for assistants from the chat: their own
		// work_approve approves at once.
		const plan = "Draft the plan in the doc; do not touch the budget; done when the team signs off."
		tp.probe("fill", map[string]any{"selector": "#work-plan", "value": plan}, &ok)
		tp.probe("click", map[string]any{"selector": "#work button"}, &ok)
		v = tp.waitState("the work approved in the task view", func(v viewState) bool { return strings.Contains(v.Text, "Work on this task is ") })
		task := nodetest.CallOK(t, owner, "tasks_get", map[string]any{"ref": "T-1"})["task"].(map[string]any)
		if task["work_state"] == nil || task["work_state"] == "" || v.Flash != "" {
			t.Errorf("after approving in the view: T-1's work_state %v, the view says %q; want the work approved", task["work_state"], v.Flash)
		}
		tp.checkAxe("task")
		screenshot(t, ctx, "apps-task")
	})

	t.Run("delete asks the person through the host", func(t *testing.T) {
		dp := openApp(t, ctx, newAppsHost(t, s, h.Token), "Delete T-4, it is done elsewhere.", "tasks_get", map[string]any{"ref": "T-4"})
		dp.waitState("T-4's card", func(v viewState) bool { return strings.Contains(v.Heading, "Fix the login redirect loop") })
		answer := func(button string) {
			t.Helper()
			var ok bool
			dp.probe("click", map[string]any{"selector": "#delete-task"}, &ok)
			poll.Until(t, pageWait, "the host's confirmation", func() bool {
				return dp.eval(`document.getElementById("confirm").hidden ? "" : document.querySelector("#confirm p").textContent`) != ""
			})
			if q := dp.eval(`document.querySelector("#confirm p").textContent`); !strings.Contains(q, "Delete task T-4?") {
				t.Errorf("the host asks %q, want the server's question Delete task T-4?", q)
			}
			screenshot(t, ctx, "apps-confirm")
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button))); err != nil {
				t.Fatal(err)
			}
		}
		answer("#confirm-decline")
		v := dp.waitState("the refusal in the view", func(v viewState) bool { return v.Flash != "" })
		if !strings.Contains(v.Flash, "Not done: the person did not confirm") {
			t.Errorf("after declining, the view says %q, want the server's Not done", v.Flash)
		}
		if laneOf(t, owner, "T-4") != "next" {
			t.Error("T-4 is gone after the person declined its deletion")
		}
		answer("#confirm-accept")
		dp.waitState("T-4 deleted in the view", func(v viewState) bool { return strings.Contains(v.Text, "T-4 is deleted.") })
		if res, err := owner.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-4"}}); err != nil || !res.IsError {
			t.Error("tasks_get T-4 still finds it after the person confirmed its deletion in the chat")
		}
		if told := dp.eval(`JSON.stringify(appsHost.modelContext)`); !strings.Contains(told, "deleted T-4") {
			t.Errorf("the view told the model %s, want that the person deleted T-4", told)
		}
	})

	t.Run("decision card", func(t *testing.T) {
		// The model asks to delete T-2; the host asks the person, who
		// confirms; the card shows the deleted task, and the person takes
		// it back with Restore, confirmed in turn.
		cp := openApp(t, ctx, newAppsHost(t, s, h.Token), "Delete T-2, the retro moved online.", "tasks_delete", map[string]any{"ref": "T-2"})
		confirm := func() {
			t.Helper()
			poll.Until(t, pageWait, "the host's confirmation", func() bool {
				ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById("confirm").hidden`))
				return err == nil && ok
			})
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#confirm-accept"))); err != nil {
				t.Fatal(err)
			}
		}
		confirm()
		v := cp.waitState("the deleted task in the card", func(v viewState) bool { return len(v.Cards) == 1 && strings.Contains(v.Text, "Restore task") })
		if v.Heading != "Delete task T-2?" || v.Cards[0].Title != "Book the venue for the retro" || !strings.Contains(v.Text, "Done: T-2 is deleted.") {
			t.Errorf("the decision card shows %q with %v: %s; want Delete task T-2?, T-2's card, and that it is deleted", v.Heading, v.Cards, v.Text)
		}
		if res, err := owner.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-2"}}); err != nil || !res.IsError {
			t.Error("tasks_get T-2 still finds it after the person confirmed its deletion")
		}
		cp.checkAxe("decision")
		screenshot(t, ctx, "apps-decision")
		var ok bool
		cp.probe("click", map[string]any{"selector": "#undo"}, &ok)
		confirm()
		cp.waitState("the restored task in the card", func(v viewState) bool {
			return v.Heading == "Restore task T-2?" && strings.Contains(v.Text, "Delete task")
		})
		if got := laneOf(t, owner, "T-2"); got != "backlog" {
			t.Errorf("T-2 restored from the decision card is in %q, want backlog", got)
		}
		if told := cp.eval(`JSON.stringify(appsHost.modelContext)`); !strings.Contains(told, "restored T-2") {
			t.Errorf("the card told the model %s, want that the person restored T-2", told)
		}
	})

	t.Run("decision waiting for a person", func(t *testing.T) {
		// The host calls as an assistant: its delete waits for a person's
		// decision in the console. The card shows it pending, with the way
		// to the decision's page, which it asks the host to open; the
		// person approves there, and the card shows the task deleted.
		nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Retire the old wiki"})
		bot, err := tenancy.AddMember(context.Background(), s.db, s.tenant, tenancy.MemberSpec{
			Handle: "chatbot", Name: "Chat Bot", Kind: member.KindAssistant, SponsorHandle: s.owner})
		if err != nil {
			t.Fatal(err)
		}
		botToken := nodetest.RecordToken(t, s.db, s.issuer, s.tenant, bot.ID, authz.AllScopes)
		wp := openApp(t, ctx, newAppsHost(t, s, botToken), "Delete T-5, the wiki is gone.", "tasks_delete", map[string]any{"ref": "T-5"})
		v := wp.waitState("the pending decision in the card", func(v viewState) bool {
			return len(v.Cards) == 1 && strings.Contains(v.Text, "Decide in Taskwire")
		})
		if v.Heading != "Delete task T-5?" || v.Cards[0].Title != "Retire the old wiki" || !strings.Contains(v.Text, "Waiting for a person's decision in Taskwire.") {
			t.Errorf("the pending card shows %q with %v: %s; want Delete task T-5?, T-5's card, and that it waits for a person", v.Heading, v.Cards, v.Text)
		}
		wp.checkAxe("pending decision")
		screenshot(t, ctx, "apps-pending")
		var ok bool
		wp.probe("click", map[string]any{"selector": "#decide"}, &ok)
		var links []string
		poll.Until(t, pageWait, "the view to ask the host to open the decision's page", func() bool {
			json.Unmarshal([]byte(wp.eval(`JSON.stringify(appsHost.links)`)), &links)
			return len(links) > 0
		})
		prefix := s.base + "/t/" + s.tenant + "/decisions/"
		if len(links) != 1 || !strings.HasPrefix(links[0], prefix) || !strings.Contains(v.Text, links[0]) {
			t.Fatalf("the view asked the host to open %q, want the decision page it shows, under %s", links, prefix)
		}
		if laneOf(t, owner, "T-5") != "backlog" {
			t.Error("T-5 moved or went before a person decided")
		}
		person := signedIn(t, s)
		person.open(strings.TrimPrefix(links[0], s.base))
		person.submit("form#decide", nil, `button[name="decision"][value="approve"]`)
		v = wp.waitState("the card after the person approved", func(v viewState) bool { return strings.Contains(v.Text, "Done: T-5 is deleted.") })
		if strings.Contains(v.Text, "Decide in Taskwire") || strings.Contains(v.Text, "Restore task") {
			t.Errorf("the card after the decision still offers a way to decide or to restore: %s", v.Text)
		}
		if res, err := owner.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-5"}}); err != nil || !res.IsError {
			t.Error("tasks_get T-5 still finds it after the person approved its deletion in the console")
		}
		if calls := strings.Join(wp.hostCalls(), " "); strings.Contains(calls, "tasks_delete") {
			t.Errorf("the card called %s through the host, want no tasks_delete of its own", calls)
		}

		// The assistant proposes work on T-2; the person reads the plan in
		// the card, declines on the decision's page, and the card says so
		// with their reason.
		const plan = "Compare three venues; book none."
		ap := openApp(t, ctx, newAppsHost(t, s, botToken), "Find a venue for T-2.", "work_approve",
			map[string]any{"ref": "T-2", "plan": plan, "lease_minutes": 20, "max_claims": 2})
		v = ap.waitState("the pending work in the card", func(v viewState) bool { return strings.Contains(v.Text, "Decide in Taskwire") })
		if v.Heading != "Approve T-2 for assistants?" || !strings.Contains(v.Text, plan) || !strings.Contains(v.Text, "Each claim lasts 20 minutes; it may be claimed 2 times in all.") {
			t.Errorf("the pending work card shows %q: %s; want the question, the plan and the limits", v.Heading, v.Text)
		}
		ap.probe("click", map[string]any{"selector": "#decide"}, &ok)
		poll.Until(t, pageWait, "the view to ask the host to open the decision's page", func() bool {
			json.Unmarshal([]byte(ap.eval(`JSON.stringify(appsHost.links)`)), &links)
			return len(links) == 1
		})
		const reason = "Not this sprint"
		person.open(strings.TrimPrefix(links[0], s.base))
		person.submit("form#decide", map[string]string{"reason": reason}, `button[name="decision"][value="decline"]`)
		v = ap.waitState("the card after the person declined", func(v viewState) bool { return strings.Contains(v.Text, "Not done:") })
		if !strings.Contains(v.Text, reason) || strings.Contains(v.Text, "Decide in Taskwire") {
			t.Errorf("the card after the person declined says %s; want their reason %q and no way to decide", v.Text, reason)
		}
		task := nodetest.CallOK(t, owner, "tasks_get", map[string]any{"ref": "T-2"})["task"].(map[string]any)
		if ws, _ := task["work_state"].(string); ws != "" {
			t.Errorf("T-2's work_state = %q after the person declined the assistant's work, want none", ws)
		}
	})
}
