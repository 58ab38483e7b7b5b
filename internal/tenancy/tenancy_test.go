package tenancy_test

import (
	"context"
	"testing"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

var acme = tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice", OwnerName: "Alice"}

func TestBootstrap(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		ctx := context.Background()
		first, err := tenancy.Bootstrap(ctx, c, acme)
		if err != nil {
			t.Fatalf("Bootstrap(empty) = %v", err)
		}
		if !first.Created {
			t.Errorf("Bootstrap(empty).Created = false, want true")
		}
		got := [...]string{first.Tenant.Slug, first.Tenant.Name, first.Owner.Handle, first.Owner.DisplayName,
			string(first.Owner.Kind), string(first.Owner.Role), first.Board.Slug, first.Board.Name}
		want := [...]string{"acme", "Acme", "alice", "Alice", "human", "owner", "main", "Main"}
		if got != want {
			t.Errorf("Bootstrap(empty) = %q, want %q", got, want)
		}
		if !first.Board.IsDefault || first.Owner.TenantID != first.Tenant.ID || first.Board.TenantID != first.Tenant.ID {
			t.Errorf("Bootstrap(empty) = board default %v, owner tenant %d, board tenant %d, want true, %d, %d",
				first.Board.IsDefault, first.Owner.TenantID, first.Board.TenantID, first.Tenant.ID, first.Tenant.ID)
		}

		other := tenancy.Config{TenantSlug: "other", OwnerHandle: "bob"}
		again, err := tenancy.Bootstrap(ctx, c, other)
		if err != nil {
			t.Fatalf("Bootstrap(again) = %v", err)
		}
		if again.Created || again.Tenant.ID != first.Tenant.ID || again.Owner.ID != first.Owner.ID || again.Board.ID != first.Board.ID {
			t.Errorf("Bootstrap(again) = created %v, ids %d/%d/%d, want false, %d/%d/%d", again.Created,
				again.Tenant.ID, again.Owner.ID, again.Board.ID, first.Tenant.ID, first.Owner.ID, first.Board.ID)
		}
		if n := c.Tenant.Query().CountX(ctx); n != 1 {
			t.Errorf("tenants after two bootstraps = %d, want 1", n)
		}
	})
}

func TestBootstrapInvalid(t *testing.T) {
	c := storetest.Open(t, storetest.SQLite)
	for _, cfg := range []tenancy.Config{
		{TenantSlug: "", OwnerHandle: "alice"},
		{TenantSlug: "Acme Inc", OwnerHandle: "alice"},
		{TenantSlug: "acme", OwnerHandle: ""},
		{TenantSlug: "acme", OwnerHandle: "me"},
		{TenantSlug: "acme", OwnerHandle: "alice", BoardSlug: "-x"},
	} {
		_, err := tenancy.Bootstrap(context.Background(), c, cfg)
		if k := domainerr.KindOf(err); k != domainerr.Invalid {
			t.Errorf("Bootstrap(%+v) = %v (%v), want invalid", cfg, err, k)
		}
	}
	if n := c.Tenant.Query().CountX(context.Background()); n != 0 {
		t.Errorf("tenants after invalid bootstraps = %d, want 0", n)
	}
}

func TestAddAndFindMember(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		ctx := context.Background()
		boot, err := tenancy.Bootstrap(ctx, c, acme)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := tenancy.AddMember(ctx, c, "acme", tenancy.MemberSpec{Handle: "bob", Name: "Bob"})
		if err != nil {
			t.Fatalf("AddMember(bob) = %v", err)
		}
		if bob.Kind != member.KindHuman || bob.Role != member.RoleMember || bob.SponsorID != nil {
			t.Errorf("AddMember(bob) = %s %s sponsor %v, want human member without sponsor", bob.Kind, bob.Role, bob.SponsorID)
		}
		claude, err := tenancy.AddMember(ctx, c, "acme", tenancy.MemberSpec{
			Handle: "claude", Kind: member.KindAssistant, Role: member.RoleMember, SponsorHandle: "alice"})
		if err != nil {
			t.Fatalf("AddMember(claude) = %v", err)
		}
		if claude.SponsorID == nil || *claude.SponsorID != boot.Owner.ID || claude.DisplayName != "claude" {
			t.Errorf("AddMember(claude) = sponsor %v, name %q, want %d, claude", claude.SponsorID, claude.DisplayName, boot.Owner.ID)
		}

		found, err := tenancy.FindMember(ctx, c, "acme", "claude")
		if err != nil || found.ID != claude.ID {
			t.Errorf("FindMember(acme, claude) = %v, %v, want member %d", found, err, claude.ID)
		}
		for _, tc := range []struct{ tenant, handle string }{{"acme", "zed"}, {"nope", "alice"}} {
			if _, err := tenancy.FindMember(ctx, c, tc.tenant, tc.handle); domainerr.KindOf(err) != domainerr.NotFound {
				t.Errorf("FindMember(%s, %s) = %v, want not found", tc.tenant, tc.handle, err)
			}
		}

		for _, tc := range []struct {
			name string
			spec tenancy.MemberSpec
			want domainerr.Kind
		}{
			{"taken handle", tenancy.MemberSpec{Handle: "bob"}, domainerr.Conflict},
			{"assistant without sponsor", tenancy.MemberSpec{Handle: "gpt", Kind: member.KindAssistant}, domainerr.Invalid},
			{"human with sponsor", tenancy.MemberSpec{Handle: "carol", SponsorHandle: "alice"}, domainerr.Invalid},
			{"assistant sponsor", tenancy.MemberSpec{Handle: "gpt", Kind: member.KindAssistant, SponsorHandle: "claude"}, domainerr.Invalid},
			{"unknown sponsor", tenancy.MemberSpec{Handle: "gpt", Kind: member.KindAssistant, SponsorHandle: "zed"}, domainerr.NotFound},
			{"bad role", tenancy.MemberSpec{Handle: "gpt", Role: "god"}, domainerr.Invalid},
			{"admin assistant", tenancy.MemberSpec{Handle: "gpt", Kind: member.KindAssistant, Role: member.RoleAdmin, SponsorHandle: "alice"}, domainerr.Invalid},
			{"owner assistant", tenancy.MemberSpec{Handle: "gpt", Kind: member.KindAssistant, Role: member.RoleOwner, SponsorHandle: "alice"}, domainerr.Invalid},
			{"bad handle", tenancy.MemberSpec{Handle: "Bob Smith"}, domainerr.Invalid},
		} {
			if _, err := tenancy.AddMember(ctx, c, "acme", tc.spec); domainerr.KindOf(err) != tc.want {
				t.Errorf("AddMember(%s) = %v (%v), want %v", tc.name, err, domainerr.KindOf(err), tc.want)
			}
		}
		if _, err := tenancy.AddMember(ctx, c, "nope", tenancy.MemberSpec{Handle: "x"}); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("AddMember(unknown tenant) = %v, want not found", err)
		}
	})
}

func TestHandlesArePerTenant(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		ctx := context.Background()
		if _, err := tenancy.Bootstrap(ctx, c, acme); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Tenant.Create().SetSlug("globex").SetName("Globex").Save(ctx); err != nil {
			t.Fatal(err)
		}
		m, err := tenancy.AddMember(ctx, c, "globex", tenancy.MemberSpec{Handle: "alice"})
		if err != nil {
			t.Fatalf("AddMember(globex, alice) = %v, want a second alice in another tenant", err)
		}
		found, err := tenancy.FindMember(ctx, c, "globex", "alice")
		if err != nil || found.ID != m.ID {
			t.Errorf("FindMember(globex, alice) = %v, %v, want member %d", found, err, m.ID)
		}
		// A sponsor must come from the same tenant.
		_, err = tenancy.AddMember(ctx, c, "globex", tenancy.MemberSpec{Handle: "bot", Kind: member.KindAssistant, SponsorHandle: "alice"})
		if err != nil {
			t.Fatalf("AddMember(globex, bot sponsored by alice) = %v", err)
		}
		bot, _ := tenancy.FindMember(ctx, c, "globex", "bot")
		if bot.SponsorID == nil || *bot.SponsorID != m.ID {
			t.Errorf("bot.SponsorID = %v, want globex's alice %d", bot.SponsorID, m.ID)
		}
	})
}
