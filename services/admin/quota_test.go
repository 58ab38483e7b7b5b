package admin_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/tokens"
)

// withQuota replaces e's service and token store by ones enforcing q, the
// store on clock now (nil: time.Now).
func (e *env) withQuota(t *testing.T, q quota.Limits, now func() time.Time) {
	t.Helper()
	store, err := tokens.New(tokens.Config{Client: e.client, Events: e.revs, Quota: q, Now: now, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := admin.New(admin.Config{Client: e.client, Tokens: store, Issuer: e.issuer, Events: e.events, Quota: q, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	e.store, e.svc = store, svc
}

func wantExhausted(t *testing.T, call string, err error, part string) {
	t.Helper()
	if domainerr.KindOf(err) != domainerr.Exhausted || !strings.Contains(domainerr.Message(err), part) {
		t.Errorf("%s = %v, want a quota's refusal saying %q", call, err, part)
	}
}

// TestMemberQuota: a tenant at its quota of current members adds no one
// until a member is removed; another tenant has its own quota.
func TestMemberQuota(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.withQuota(t, quota.Limits{Members: 6}, nil) // acme has 5
		op := e.as(t, "operator")
		add := func(handle string) error {
			_, err := e.svc.AddMember(op, &adminv1.AddMemberRequest{Tenant: "acme", Handle: handle})
			return err
		}
		if err := add("zed"); err != nil {
			t.Fatalf("AddMember with one place left = %v", err)
		}
		wantExhausted(t, "AddMember at the quota", add("yan"), "tenant acme has 6 members, its quota")
		if _, err := e.svc.AddMember(op, &adminv1.AddMemberRequest{Tenant: "globex", Handle: "gil"}); err != nil {
			t.Errorf("AddMember to globex = %v, want its own quota", err)
		}
		if _, err := e.svc.RemoveMember(op, &adminv1.RemoveMemberRequest{Tenant: "acme", Handle: "zed"}); err != nil {
			t.Fatal(err)
		}
		if err := add("yan"); err != nil {
			t.Errorf("AddMember once a member left = %v, want room again", err)
		}
	})
}

// TestMemberQuotaConcurrent: additions racing for the last places never
// overshoot the quota.
func TestMemberQuotaConcurrent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.withQuota(t, quota.Limits{Members: 4}, nil) // globex has gus
		op := e.as(t, "operator")
		const n = 10
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = e.svc.AddMember(op, &adminv1.AddMemberRequest{Tenant: "globex", Handle: fmt.Sprintf("racer-%d", i)})
			})
		}
		wg.Wait()
		added := 0
		for _, err := range errs {
			switch {
			case err == nil:
				added++
			case domainerr.KindOf(err) != domainerr.Exhausted:
				t.Fatalf("concurrent AddMember = %v", err)
			}
		}
		list, err := e.svc.ListMembers(op, &adminv1.ListMembersRequest{Tenant: "globex"})
		if err != nil {
			t.Fatal(err)
		}
		if added != 3 || len(list.GetMembers()) != 4 {
			t.Errorf("%d additions racing for 3 places: %d succeeded, globex has %d members; want 3 and 4", n, added, len(list.GetMembers()))
		}
	})
}

// TestTokenQuota: a member holding its quota of live tokens gets no more
// until one is revoked or expires; the quota is per member.
func TestTokenQuota(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.withQuota(t, quota.Limits{TokensPerMember: 2}, nil)
		alice := e.as(t, "acme/alice")
		create := func(member string) (*adminv1.CreateTokenResponse, error) {
			return e.svc.CreateToken(alice, &adminv1.CreateTokenRequest{Member: member, Scopes: []string{"read"}})
		}
		first, err := create("mia")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := create("mia"); err != nil {
			t.Fatal(err)
		}
		_, err = create("mia")
		wantExhausted(t, "CreateToken over the quota", err, "mia holds 2 live tokens, the most one member may")
		if _, err := create("vic"); err != nil {
			t.Errorf("CreateToken for another member = %v, want a quota of its own", err)
		}
		if _, err := e.svc.RevokeToken(alice, &adminv1.RevokeTokenRequest{Id: first.GetInfo().GetId()}); err != nil {
			t.Fatal(err)
		}
		if _, err := create("mia"); err != nil {
			t.Errorf("CreateToken once one was revoked = %v, want room again", err)
		}

		// Expired tokens do not count: seen 100 days on, mia's have expired.
		e.withQuota(t, quota.Limits{TokensPerMember: 2}, func() time.Time { return time.Now().Add(100 * 24 * time.Hour) })
		if _, err := create("mia"); err != nil {
			t.Errorf("CreateToken once the others expired = %v, want room again", err)
		}
	})
}

// TestTokenQuotaConcurrent: creations racing for the last places never
// overshoot the quota.
func TestTokenQuotaConcurrent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.withQuota(t, quota.Limits{TokensPerMember: 3}, nil)
		alice := e.as(t, "acme/alice")
		const n = 10
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = e.svc.CreateToken(alice, &adminv1.CreateTokenRequest{Member: "bot", Scopes: []string{"read"}})
			})
		}
		wg.Wait()
		created := 0
		for _, err := range errs {
			switch {
			case err == nil:
				created++
			case domainerr.KindOf(err) != domainerr.Exhausted:
				t.Fatalf("concurrent CreateToken = %v", err)
			}
		}
		if created != 3 {
			t.Errorf("%d creations racing for 3 places: %d succeeded, want 3", n, created)
		}
	})
}
