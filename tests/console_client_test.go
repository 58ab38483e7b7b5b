package tests

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/node/nodetest"
)

// hostileClient is what a client may call itself: markup, which the
// console must show as text.
const hostileClient = "Hostile <b>Client</b>"

// TestConsoleHistoryNamesClient: an assistant creates and moves a task
// through a client that labels its session with markup; the person's task page
// names that client in the history, escaped, beside the assistant's
// sponsor. On SQLite and PostgreSQL.
func TestConsoleHistoryNamesClient(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			person := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignIn(t, person, signInLink(t, h, "default", "owner"))
			token := nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, "default", addBot(t, h).ID, authz.AllScopes)
			cs := labelledClient(t, h, token, hostileClient, &mcp.Implementation{Name: hostileClient, Version: "1.0.0"})
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Rotate the keys", "lane": "next"})
			nodetest.CallOK(t, cs, "tasks_move", map[string]any{"ref": "T-1", "lane": "doing"})

			page := person.get("/t/default/tasks/T-1")
			const bot = `<span class="actor" data-kind="assistant">bot (assistant of owner, via Hostile &lt;b&gt;Client&lt;/b&gt;)</span> `
			for _, want := range []string{bot + "created T-1 in next", bot + "moved T-1 from next to doing"} {
				if !strings.Contains(page, want) {
					t.Errorf("the task page's history lacks %s:\n%s", want, page)
				}
			}
			// A client that sends no label header is named by the
			// clientInfo it sends with each call: its title.
			plain := labelledClient(t, h, token, "", &mcp.Implementation{Name: "claude-code", Title: "Claude Code", Version: "2.1.0"})
			nodetest.CallOK(t, plain, "tasks_move", map[string]any{"ref": "T-1", "lane": "next"})
			if want := `<span class="actor" data-kind="assistant">bot (assistant of owner, via Claude Code)</span> moved T-1 from doing to next`; !strings.Contains(person.get("/t/default/tasks/T-1"), want) {
				t.Errorf("the task page's history lacks %s", want)
			}
			if strings.Contains(page, "<b>Client") {
				t.Errorf("the task page shows the client's label as markup:\n%s", page)
			}
		})
	}
}

// labelledClient connects the go-sdk client impl with token, sending
// label as its session label, the Taskwire-Session-Label header on every
// request ("": no header).
func labelledClient(t *testing.T, h *nodetest.Harness, token, label string, impl *mcp.Implementation) *mcp.ClientSession {
	t.Helper()
	var base http.RoundTripper = http.DefaultTransport
	if label != "" {
		base = headerTransport{"Taskwire-Session-Label", label, base}
	}
	rec := nodetest.NewWireRecorder(t, token, "", base)
	cs, err := mcp.NewClient(impl, nil).Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: h.Sys.Endpoint, HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("Connect as %q: %v", impl.Name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// headerTransport sends every request through base with header key set
// to value.
type headerTransport struct {
	key, value string
	base       http.RoundTripper
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set(h.key, h.value)
	return h.base.RoundTrip(req)
}
