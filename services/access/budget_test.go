package access

import (
	"context"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/taskwire/taskwire/internal/caller/identity"
)

func TestBudgetRoundTrip(t *testing.T) {
	for _, b := range []Budget{
		{Token: &BudgetLevel{Remaining: 19, PerSecond: 10, Burst: 20}, Tenant: &BudgetLevel{Remaining: 0, PerSecond: 0.25, Burst: 1}},
		{Tenant: &BudgetLevel{Remaining: 3, PerSecond: 1.5, Burst: 4}},
		{},
	} {
		got, err := ParseBudget(b.String())
		if err != nil || got.String() != b.String() {
			t.Errorf("ParseBudget(%q) = %q, %v; want it back", b, got, err)
		}
	}
}

func TestParseBudgetRefuses(t *testing.T) {
	for _, s := range []string{
		"token=1/2", "token=1/2/3/4", "token=a/1/1", "token=1/0/1", "token=1/1/0", "token=2/1/1",
		"token=-1/1/1", "token=1/NaN/1", "token=1/Inf/1", "user=1/1/1", "token=1/1/1;token=1/1/1", ";",
	} {
		if b, err := ParseBudget(s); err == nil {
			t.Errorf("ParseBudget(%q) = %q, want an error", s, b)
		}
	}
}

// TestWhoamiBudget: whoami returns the budget the front door sent with
// the call, and none when it sent none.
func TestWhoamiBudget(t *testing.T) {
	ctx := identity.WithAccess(context.Background(), identity.Access{Tenant: "acme", Handle: "bob", Role: "member", Kind: "human"})
	ctx = identity.NewContext(ctx, identity.Caller{Tenant: "acme", Member: 2, Scopes: []string{"read"}})
	sent := AppendBudget(NewBudgetContext(context.Background(), Budget{Token: &BudgetLevel{Remaining: 4, PerSecond: 2, Burst: 5}}))
	md, _ := metadata.FromOutgoingContext(sent)

	resp, err := New(Config{}).Whoami(metadata.NewIncomingContext(ctx, md), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := resp.GetBudget(); b.GetTenant() != nil || b.GetToken().GetRemaining() != 4 || b.GetToken().GetPerSecond() != 2 || b.GetToken().GetBurst() != 5 {
		t.Errorf("Whoami budget = %v, want token 4 left of 5 at 2/s and no tenant limit", b)
	}
	resp, err = New(Config{}).Whoami(ctx, nil)
	if err != nil || resp.GetBudget() != nil {
		t.Errorf("Whoami without a budget sent = %v, %v; want no budget", resp.GetBudget(), err)
	}
}
