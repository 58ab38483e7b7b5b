package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent/member"
	tevents "github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/tokens"
)

const liveOperatorSecret = "the operator secret of the console's live test"

// TestConsoleLiveDecision: on a deployment of two front doors, a person
// signed in at one watches the tenant's events at the other; an assistant
// asks for a decision (the worker publishes it on NATS), the stream says
// so at once, the inbox lists it, and the person approves it at the first
// front door.
func TestConsoleLiveDecision(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			op, err := adminedge.NewOperatorSecret(liveOperatorSecret)
			if err != nil {
				t.Fatal(err)
			}
			s.Operator = op
			c := nodetest.StartCluster(t, s)
			here := newBrowser(t, "http://"+c.Fronts[0])
			firstSignIn(t, here, clusterSignInLink(t, c, "acme", "ada"))
			there := newBrowser(t, "http://"+c.Fronts[1])
			there.cookies = here.cookies

			stream := openEvents(t, there, "/t/acme/events")
			id := requestDecision(t, c, "acme")
			poll.Until(t, 5*time.Second, "the decision's event at the other front door", func() bool {
				return stream.has("event: decisions") && stream.has(`"ref":"`+id+`"`)
			})

			inbox := there.get("/t/acme/decisions")
			if !strings.Contains(inbox, `<li data-decision="`+id+`" data-state="pending">`) {
				t.Fatalf("the inbox does not list decision %s as pending:\n%s", id, inbox)
			}
			page := here.get("/t/acme/decisions/" + id)
			if !strings.Contains(page, "Delete task T-1?") || !strings.Contains(page, "sponsored by ada") {
				t.Errorf("the decision page does not show the question and who asked:\n%s", page)
			}
			code, loc, body := here.submit(page, `<form id="decide"`, url.Values{"decision": {"approve"}, "reason": {"fine by me"}})
			if code != http.StatusSeeOther || loc != "/t/acme/decisions/"+id {
				t.Fatalf("approving = %d to %q, want 303 back:\n%s", code, loc, body)
			}
			if page := here.get(loc); !strings.Contains(page, `<p id="decision-state" data-state="approved">Approved by ada: fine by me.`) {
				t.Errorf("the decision page after approving does not say so:\n%s", page)
			}
		})
	}
}

// clusterSignInLink makes a sign-in link at the cluster's first front
// door, as the operator.
func clusterSignInLink(t *testing.T, c *nodetest.Cluster, tenant, handle string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+c.Fronts[0]+"/admin/v1/CreateSignInLink", strings.NewReader(`{"tenant":"`+tenant+`","handle":"`+handle+`"}`))
	req.Header.Set("Authorization", "Bearer "+liveOperatorSecret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Secret string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.Secret == "" {
		t.Fatalf("CreateSignInLink = %d, %v, want a secret", resp.StatusCode, err)
	}
	return out.Secret
}

// requestDecision asks, as an assistant of tenant sponsored by its owner,
// for a person's decision on deleting T-1, straight at the worker as a
// front door does, and returns the decision's id.
func requestDecision(t *testing.T, c *nodetest.Cluster, tenant string) string {
	t.Helper()
	ctx := context.Background()
	bot, err := tenancy.AddMember(ctx, c.DB, tenant, tenancy.MemberSpec{Handle: "bot", Name: "Bot", Kind: member.KindAssistant, SponsorHandle: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	store, err := tokens.New(tokens.Config{Client: c.DB, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	_, info, err := store.Create(ctx, c.Issuer, tokens.CreateRequest{Tenant: tenant, Member: bot.ID, Scopes: authz.AllScopes, Label: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(c.Front.Worker, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(identity.InternalKey(c.Front.InternalKey)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	as := identity.AppendToOutgoing(ctx, identity.Caller{Tenant: tenant, Member: bot.ID, Scopes: info.Scopes, TokenID: info.ID, Expires: info.ExpiresAt})
	resp, err := taskwirev1.NewDecisionServiceClient(conn).RequestDecision(as, &taskwirev1.RequestDecisionRequest{
		Tool: "tasks_delete", Question: "Delete task T-1?", ArgumentsJson: `{"ref":"T-1"}`, Digest: "digest-of-T-1",
	})
	if err != nil {
		t.Fatalf("RequestDecision: %v", err)
	}
	return resp.GetDecision().GetId()
}

// eventStream is an open event stream of the console, its lines kept.
type eventStream struct {
	mu    sync.Mutex
	lines []string
}

func (e *eventStream) has(s string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, l := range e.lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// openEvents opens path's event stream as b, once the page's script
// would see it open (the first comment arrived).
func openEvents(t *testing.T, b *browser, path string) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", b.base+path, nil)
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s = %d %q, want 200 text/event-stream", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ev := &eventStream{}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			ev.mu.Lock()
			ev.lines = append(ev.lines, sc.Text())
			ev.mu.Unlock()
		}
	}()
	poll.Until(t, 5*time.Second, "the stream to open", func() bool { return ev.has(": connected") })
	return ev
}

// TestConsoleLiveBoard: a task a go-sdk MCP client creates (through
// either front door) reaches the console's stream at every front door as
// a board event naming it; an event of another tenant reaches none.
func TestConsoleLiveBoard(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			op, err := adminedge.NewOperatorSecret(liveOperatorSecret)
			if err != nil {
				t.Fatal(err)
			}
			s.Operator = op
			c := nodetest.StartCluster(t, s)
			b := newBrowser(t, "http://"+c.Fronts[0])
			firstSignIn(t, b, clusterSignInLink(t, c, "acme", "ada"))
			var streams []*eventStream
			for _, front := range c.Fronts {
				at := newBrowser(t, "http://"+front)
				at.cookies = b.cookies
				streams = append(streams, openEvents(t, at, "/t/acme/events"))
			}
			bus, err := tevents.New(natstest.Connect(t, c.NATSURL))
			if err != nil {
				t.Fatal(err)
			}
			if err := bus.Publish("globex", tevents.Event{Kind: tevents.BoardChanged, Board: "main", Ref: "T-99"}); err != nil {
				t.Fatal(err)
			}

			cs, _ := c.Client(t, nil)
			ref := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Seen live"})["task"].(map[string]any)["ref"].(string)
			for i, st := range streams {
				poll.Until(t, 5*time.Second, "the board event of "+ref+" at front door "+c.Fronts[i], func() bool {
					return st.has("event: board") && st.has(`"ref":"`+ref+`"`)
				})
				if st.has("T-99") {
					t.Errorf("front door %d streamed another tenant's event", i)
				}
			}
		})
	}
}
