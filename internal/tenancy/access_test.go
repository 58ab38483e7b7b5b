package tenancy_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

func TestResolver(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		ctx := context.Background()
		boot, err := tenancy.Bootstrap(ctx, c, acme)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := tenancy.AddMember(ctx, c, "acme", tenancy.MemberSpec{Handle: "bob", Name: "Bob", Role: member.RoleViewer})
		if err != nil {
			t.Fatal(err)
		}
		claude, err := tenancy.AddMember(ctx, c, "acme", tenancy.MemberSpec{
			Handle: "claude", Name: "Claude", Kind: member.KindAssistant, SponsorHandle: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		globex, err := c.Tenant.Create().SetSlug("globex").SetName("Globex").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		zed, err := tenancy.AddMember(ctx, c, "globex", tenancy.MemberSpec{Handle: "zed"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tenancy.NewResolver(c)
		if err != nil {
			t.Fatal(err)
		}
		tid := boot.Tenant.ID
		for _, tc := range []struct {
			member int
			want   identity.Access
		}{
			{boot.Owner.ID, identity.Access{TenantID: tid, Tenant: "acme", TenantName: "Acme", MemberID: boot.Owner.ID,
				Handle: "alice", DisplayName: "Alice", Kind: "human", Role: "owner"}},
			{bob.ID, identity.Access{TenantID: tid, Tenant: "acme", TenantName: "Acme", MemberID: bob.ID,
				Handle: "bob", DisplayName: "Bob", Kind: "human", Role: "viewer"}},
			{claude.ID, identity.Access{TenantID: tid, Tenant: "acme", TenantName: "Acme", MemberID: claude.ID,
				Handle: "claude", DisplayName: "Claude", Kind: "assistant", Role: "member",
				SponsorID: boot.Owner.ID, Sponsor: "alice"}},
		} {
			got, err := r.Resolve(ctx, identity.Caller{Tenant: "acme", Member: tc.member, Scopes: []string{"read"}})
			if err != nil {
				t.Errorf("Resolve(acme, %d) = %v", tc.member, err)
				continue
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Resolve(acme, %d) (-want +got):\n%s", tc.member, diff)
			}
		}

		// The role is read afresh on every call.
		scoped := tenantscope.NewContext(ctx, tid)
		if err := c.Member.UpdateOneID(bob.ID).SetRole(member.RoleMember).Exec(scoped); err != nil {
			t.Fatal(err)
		}
		if got, err := r.Resolve(ctx, identity.Caller{Tenant: "acme", Member: bob.ID}); err != nil || got.Role != "member" {
			t.Errorf("Resolve(acme, bob) after promotion = role %q, %v; want member", got.Role, err)
		}

		for name, caller := range map[string]identity.Caller{
			"unknown tenant":         {Tenant: "nope", Member: bob.ID},
			"unknown member":         {Tenant: "acme", Member: zed.ID + 100},
			"member of other tenant": {Tenant: "acme", Member: zed.ID},
			"no member":              {Tenant: "acme"},
		} {
			_, err := r.Resolve(ctx, caller)
			if k := domainerr.KindOf(err); k != domainerr.Unauthenticated {
				t.Errorf("Resolve(%s) = %v (%v), want unauthenticated", name, err, k)
			}
		}
		if got, err := r.Resolve(ctx, identity.Caller{Tenant: "globex", Member: zed.ID}); err != nil || got.TenantID != globex.ID || got.Handle != "zed" {
			t.Errorf("Resolve(globex, zed) = %+v, %v; want zed of globex", got, err)
		}
	})
}

// TestResolverRefusesRemoved: a removed member is refused from the next
// call on, whatever token they hold.
func TestResolverRefusesRemoved(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		ctx := context.Background()
		boot, err := tenancy.Bootstrap(ctx, c, acme)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := tenancy.AddMember(ctx, c, "acme", tenancy.MemberSpec{Handle: "bob"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tenancy.NewResolver(c)
		if err != nil {
			t.Fatal(err)
		}
		caller := identity.Caller{Tenant: "acme", Member: bob.ID, Scopes: []string{"read"}}
		if _, err := r.Resolve(ctx, caller); err != nil {
			t.Fatalf("Resolve(bob) before removal = %v", err)
		}
		scoped := tenantscope.NewContext(ctx, boot.Tenant.ID)
		if err := c.Member.UpdateOneID(bob.ID).SetRemovedAt(time.Now()).Exec(scoped); err != nil {
			t.Fatal(err)
		}
		_, err = r.Resolve(ctx, caller)
		if k := domainerr.KindOf(err); k != domainerr.Unauthenticated {
			t.Fatalf("Resolve(bob) after removal = %v (%v), want unauthenticated", err, k)
		}
		if want := "You were removed from tenant acme: ask an owner or admin of acme if that is a mistake"; domainerr.Message(err) != want {
			t.Errorf("Resolve(bob) after removal says %q, want %q", domainerr.Message(err), want)
		}
	})
}
