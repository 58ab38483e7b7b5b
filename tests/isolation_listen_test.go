package tests

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestTenantIsolationListen: a listen stream hears its own tenant's
// changes only. Another tenant's changes (every member's, one naming the
// stream's own member id as if ids were shared across tenants, and real
// role changes made through the admin API) reach the stream of no one
// outside it; a change of the stream's own tenant, sent after them, does.
func TestTenantIsolationListen(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			wire := newIsoWire(t, h)
			// Fresh slugs: a NATS server shared with other tests carries
			// their tenants' changes too.
			op := h.OperatorSecret(t)
			a, b := isoNewTenant(t, wire, op), isoNewTenant(t, wire, op)
			bus, err := events.New(h.Sys.NATS())
			if err != nil {
				t.Fatal(err)
			}
			heard := make(chan struct{}, 64)
			h.Client(t, a.OwnerToken, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { heard <- struct{}{} },
			})
			// Until the stream has subscribed, its tenant's changes are lost.
			poll.Until(t, 10*time.Second, "tenant A's listen stream to subscribe", func() bool {
				bus.Publish(a.Tenant.Slug, events.Event{Kind: events.ToolsChanged})
				select {
				case <-heard:
					return true
				case <-time.After(50 * time.Millisecond):
					return false
				}
			})
			for round := range 2 {
				for range 3 {
					bus.Publish(b.Tenant.Slug, events.Event{Kind: events.ToolsChanged})
					bus.Publish(b.Tenant.Slug, events.Event{Kind: events.ToolsChanged, Member: a.ownerID()})
					if r := wire.adminJSON(op, "SetMemberRole", `{"tenant":"`+b.Tenant.Slug+`","handle":"boss","role":"MEMBER_ROLE_OWNER"}`); r.status != 200 {
						t.Fatalf("tenant B's SetMemberRole = %d %s", r.status, r.body)
					}
				}
				bus.Publish(a.Tenant.Slug, events.Event{Kind: events.ToolsChanged, Member: a.ownerID()})
				select {
				case <-heard:
				case <-time.After(10 * time.Second):
					t.Fatalf("round %d: tenant A's listen stream did not hear tenant A's change", round)
				}
			}
			if n := len(heard); n != 0 {
				t.Errorf("tenant A's listen stream heard %d changes of tenant B", n)
			}
		})
	}
}

// isoTenant is a tenant an operator created: CreateTenant's answer.
type isoTenant struct {
	Tenant     struct{ Slug string }
	Owner      struct{ ID string }
	OwnerToken string
}

func (x isoTenant) ownerID() int {
	id, _ := strconv.Atoi(x.Owner.ID)
	return id
}

// isoNewTenant creates a tenant with a fresh slug, owned by "boss".
func isoNewTenant(t *testing.T, wire *isoWire, operator string) isoTenant {
	t.Helper()
	slug := "iso-" + strings.ToLower(rand.Text()[:10])
	a := wire.adminJSON(operator, "CreateTenant", `{"slug":"`+slug+`","ownerHandle":"boss"}`)
	var x isoTenant
	if err := json.Unmarshal(a.body, &x); err != nil || x.OwnerToken == "" || x.ownerID() == 0 {
		t.Fatalf("CreateTenant %s = %d %s", slug, a.status, a.body)
	}
	return x
}
