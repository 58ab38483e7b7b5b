package admin_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// TestLastOwner: the last owner can be neither demoted nor removed, by
// anyone; with a second owner either can go.
func TestLastOwner(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		for _, who := range []string{"acme/alice", "operator"} {
			ctx := e.as(t, who)
			_, err := e.svc.SetMemberRole(ctx, &adminv1.SetMemberRoleRequest{Tenant: "acme", Handle: "alice", Role: roleOf("admin")})
			want := "alice is the last owner of acme and cannot be demoted: make another member owner first"
			if domainerr.KindOf(err) != domainerr.Conflict || domainerr.Message(err) != want {
				t.Errorf("demoting the last owner as %s = %v, want conflict %q", who, err, want)
			}
			_, err = e.svc.RemoveMember(ctx, &adminv1.RemoveMemberRequest{Tenant: "acme", Handle: "alice"})
			if domainerr.KindOf(err) != domainerr.Conflict {
				t.Errorf("removing the last owner as %s = %v, want conflict", who, err)
			}
		}
		alice := e.as(t, "acme/alice")
		if _, err := e.svc.SetMemberRole(alice, &adminv1.SetMemberRoleRequest{Handle: "adam", Role: roleOf("owner")}); err != nil {
			t.Fatal(err)
		}
		resp, err := e.svc.SetMemberRole(alice, &adminv1.SetMemberRoleRequest{Handle: "alice", Role: roleOf("admin")})
		if err != nil || resp.GetMember().GetRole() != taskwirev1.MemberRole_MEMBER_ROLE_ADMIN {
			t.Fatalf("demoting one of two owners = %v, %v; want an admin", resp, err)
		}
		if _, err := e.svc.RemoveMember(e.as(t, "acme/adam"), &adminv1.RemoveMemberRequest{Handle: "adam"}); domainerr.KindOf(err) != domainerr.Conflict {
			t.Errorf("the new last owner removing themselves = %v, want conflict", err)
		}
	})
}

// TestLastOwnerRace: two owners demoting each other at once cannot leave
// the tenant without an owner.
func TestLastOwnerRace(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		op := e.as(t, "operator")
		if _, err := e.svc.SetMemberRole(op, &adminv1.SetMemberRoleRequest{Tenant: "acme", Handle: "adam", Role: roleOf("owner")}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, h := range []string{"alice", "adam"} {
			wg.Go(func() {
				_, errs[i] = e.svc.SetMemberRole(op, &adminv1.SetMemberRoleRequest{Tenant: "acme", Handle: h, Role: roleOf("member")})
			})
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two owners demoted at once: %v and %v, want exactly one refused", errs[0], errs[1])
		}
		for _, err := range errs {
			if err != nil && domainerr.KindOf(err) != domainerr.Conflict {
				t.Errorf("the refused demotion: %v, want conflict", err)
			}
		}
	})
}

// TestRemoveMember: removal revokes every token of the member, tells the
// front doors and listen streams, refuses the member from the next call,
// hides them from the list unless asked, and can be repeated.
func TestRemoveMember(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		jtis := []string{e.mint(t, "acme/bot"), e.mint(t, "acme/bot")}
		other := e.mint(t, "acme/mia")
		alice := e.as(t, "acme/alice")

		if _, err := e.svc.SetMemberRole(alice, &adminv1.SetMemberRoleRequest{Handle: "adam", Role: roleOf("owner")}); err != nil {
			t.Fatal(err)
		}
		e.events.take()
		_, err := e.svc.RemoveMember(alice, &adminv1.RemoveMemberRequest{Handle: "alice"})
		if want := "alice sponsors bot: remove it first, since every assistant needs a sponsor"; domainerr.Message(err) != want {
			t.Errorf("removing a sponsor = %v, want %q", err, want)
		}

		resp, err := e.svc.RemoveMember(alice, &adminv1.RemoveMemberRequest{Handle: "bot"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetRevokedTokens() != 2 || resp.GetMember().GetRemoveTime() == nil {
			t.Errorf("RemoveMember(bot) = %v, want 2 tokens revoked and a remove time", resp)
		}
		for _, j := range jtis {
			if !e.isRevoked(t, j) {
				t.Errorf("bot's token %s is live after the removal", j)
			}
		}
		if e.isRevoked(t, other) {
			t.Errorf("mia's token was revoked by bot's removal")
		}
		bot := e.members["acme/bot"]
		if got, want := e.events.take(), []string{"acme tools " + strconv.Itoa(bot)}; !slices.Equal(got, want) {
			t.Errorf("published %q, want %q", got, want)
		}
		r, _ := tenancy.NewResolver(client)
		if _, err := r.Resolve(ctx, identity.Caller{Tenant: "acme", Member: bot}); domainerr.KindOf(err) != domainerr.Unauthenticated {
			t.Errorf("Resolve(bot) after removal = %v, want unauthenticated", err)
		}

		if got := handles(t, e, alice, false); slices.Contains(got, "bot") {
			t.Errorf("ListMembers = %q, want bot left out", got)
		}
		if got := handles(t, e, alice, true); !slices.Contains(got, "bot") {
			t.Errorf("ListMembers(show_removed) = %q, want bot in", got)
		}
		if _, err := e.svc.CreateToken(alice, &adminv1.CreateTokenRequest{Member: "bot", Scopes: []string{"read"}}); domainerr.KindOf(err) != domainerr.Conflict {
			t.Errorf("CreateToken for a removed member = %v, want conflict", err)
		}
		if _, err := e.svc.SetMemberRole(alice, &adminv1.SetMemberRoleRequest{Handle: "bot", Role: roleOf("viewer")}); domainerr.KindOf(err) != domainerr.Conflict {
			t.Errorf("SetMemberRole of a removed member = %v, want conflict", err)
		}
		again, err := e.svc.RemoveMember(alice, &adminv1.RemoveMemberRequest{Handle: "bot"})
		if err != nil || again.GetRevokedTokens() != 0 || !again.GetMember().GetRemoveTime().AsTime().Equal(resp.GetMember().GetRemoveTime().AsTime()) {
			t.Errorf("removing again = %v, %v; want success, nothing more revoked, the same remove time", again, err)
		}
		// With bot gone, its sponsor can go.
		if _, err := e.svc.RemoveMember(alice, &adminv1.RemoveMemberRequest{Handle: "alice"}); err != nil {
			t.Errorf("removing alice, sponsor of no current assistant, with another owner = %v", err)
		}
	})
}

// TestSetMemberRoleTellsListeners: a new role is stored and announced to
// the member's listen streams.
func TestSetMemberRoleTellsListeners(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	resp, err := e.svc.SetMemberRole(e.as(t, "acme/adam"), &adminv1.SetMemberRoleRequest{Handle: "bot", Role: roleOf("viewer")})
	if err != nil {
		t.Fatal(err)
	}
	m := resp.GetMember()
	if m.GetRole() != taskwirev1.MemberRole_MEMBER_ROLE_VIEWER || m.GetSponsor() != "alice" || m.GetKind() != taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT {
		t.Errorf("SetMemberRole(bot, viewer) = %v, want a viewer assistant sponsored by alice", m)
	}
	if got, want := e.events.take(), []string{"acme tools " + strconv.Itoa(e.members["acme/bot"])}; !slices.Equal(got, want) {
		t.Errorf("published %q, want %q", got, want)
	}
	if _, err := e.svc.SetMemberRole(e.as(t, "acme/adam"), &adminv1.SetMemberRoleRequest{Handle: "bot"}); domainerr.KindOf(err) != domainerr.Invalid {
		t.Errorf("SetMemberRole without a role = %v, want invalid", err)
	}
}

// TestAddMember: an assistant needs a current human sponsor of its tenant.
func TestAddMember(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		adam := e.as(t, "acme/adam")
		resp, err := e.svc.AddMember(adam, &adminv1.AddMemberRequest{
			Handle: "claude", DisplayName: "Claude", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "mia",
		})
		if err != nil {
			t.Fatal(err)
		}
		m := resp.GetMember()
		if m.GetHandle() != "claude" || m.GetSponsor() != "mia" || m.GetRole() != taskwirev1.MemberRole_MEMBER_ROLE_MEMBER || m.GetId() == 0 {
			t.Errorf("AddMember(claude) = %v, want a member assistant sponsored by mia", m)
		}
		for name, tc := range map[string]struct {
			req  *adminv1.AddMemberRequest
			want domainerr.Kind
		}{
			"taken handle":          {&adminv1.AddMemberRequest{Handle: "mia"}, domainerr.Conflict},
			"no sponsor":            {&adminv1.AddMemberRequest{Handle: "gpt", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT}, domainerr.Invalid},
			"sponsor elsewhere":     {&adminv1.AddMemberRequest{Handle: "gpt", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "gus"}, domainerr.NotFound},
			"assistant as sponsor":  {&adminv1.AddMemberRequest{Handle: "gpt", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "bot"}, domainerr.Invalid},
			"bad handle":            {&adminv1.AddMemberRequest{Handle: "Bad Handle"}, domainerr.Invalid},
			"unknown role":          {&adminv1.AddMemberRequest{Handle: "gpt", Role: 42}, domainerr.Invalid},
			"another tenant's name": {&adminv1.AddMemberRequest{Tenant: "globex", Handle: "gpt"}, domainerr.NotFound},
		} {
			if _, err := e.svc.AddMember(adam, tc.req); domainerr.KindOf(err) != tc.want {
				t.Errorf("AddMember(%s) = %v, want %v", name, err, tc.want)
			}
		}
	})
}

func handles(t *testing.T, e *env, ctx context.Context, removed bool) []string {
	t.Helper()
	resp, err := e.svc.ListMembers(ctx, &adminv1.ListMembersRequest{ShowRemoved: removed})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range resp.GetMembers() {
		out = append(out, m.GetHandle())
	}
	return out
}

// TestAssistantsNeverAdminister: an assistant is at most a member: adding
// one as admin or owner, or raising one to either, is refused in a
// sentence, and no admin token is minted for it.
func TestAssistantsNeverAdminister(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	alice := e.as(t, "acme/alice")
	want := "bot is an assistant, and assistants are at most members: give it the member or viewer role"
	for _, role := range []string{"admin", "owner"} {
		_, err := e.svc.AddMember(alice, &adminv1.AddMemberRequest{
			Handle: "bot2", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "alice", Role: roleOf(role),
		})
		if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(domainerr.Message(err), "assistants are at most members") {
			t.Errorf("AddMember(assistant as %s) = %v, want refused", role, err)
		}
		_, err = e.svc.SetMemberRole(alice, &adminv1.SetMemberRoleRequest{Handle: "bot", Role: roleOf(role)})
		if domainerr.KindOf(err) != domainerr.Invalid || domainerr.Message(err) != want {
			t.Errorf("SetMemberRole(bot, %s) = %v, want Invalid %q", role, err, want)
		}
	}
	_, err := e.svc.CreateToken(alice, &adminv1.CreateTokenRequest{Member: "bot", Admin: true})
	if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(domainerr.Message(err), "admin tokens are for people") {
		t.Errorf("CreateToken(admin token for an assistant) = %v, want refused", err)
	}
	_, err = e.svc.CreateToken(alice, &adminv1.CreateTokenRequest{Member: "adam", Admin: true, Scopes: []string{"read"}})
	if domainerr.KindOf(err) != domainerr.Invalid {
		t.Errorf("CreateToken(admin token with scopes) = %v, want refused", err)
	}
}
