package admin_test

import (
	"context"
	"slices"
	"testing"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

var assistant = taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT

// TestSelfService: a member in the console manages their own assistants
// and the tokens of those and of themselves, and nothing else.
func TestSelfService(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		mia := e.console(t, "acme/mia")
		if _, err := e.svc.ListMembers(mia, &adminv1.ListMembersRequest{}); err != nil {
			t.Errorf("ListMembers as a member in the console = %v, want the list", err)
		}
		added, err := e.svc.AddMember(mia, &adminv1.AddMemberRequest{Handle: "miabot", Kind: assistant, Sponsor: "mia"})
		if err != nil || added.GetMember().GetRole() != roleOf("member") || added.GetMember().GetSponsor() != "mia" {
			t.Fatalf("a member adds their own assistant = %v, %v; want a member sponsored by mia", added, err)
		}
		e.members["acme/miabot"] = int(added.GetMember().GetId())
		for _, tc := range []struct {
			name string
			call func(context.Context) error
		}{
			{"add a person", func(ctx context.Context) error {
				_, err := e.svc.AddMember(ctx, &adminv1.AddMemberRequest{Handle: "pat"})
				return err
			}},
			{"add an assistant sponsored by someone else", func(ctx context.Context) error {
				_, err := e.svc.AddMember(ctx, &adminv1.AddMemberRequest{Handle: "abot", Kind: assistant, Sponsor: "alice"})
				return err
			}},
			{"add an admin assistant", func(ctx context.Context) error {
				_, err := e.svc.AddMember(ctx, &adminv1.AddMemberRequest{Handle: "abot", Kind: assistant, Sponsor: "mia", Role: roleOf("admin")})
				return err
			}},
			{"mint for someone else's assistant", func(ctx context.Context) error {
				_, err := e.svc.CreateToken(ctx, &adminv1.CreateTokenRequest{Member: "bot", Scopes: []string{"read"}})
				return err
			}},
			{"mint an admin token", func(ctx context.Context) error {
				_, err := e.svc.CreateToken(ctx, &adminv1.CreateTokenRequest{Member: "mia", Admin: true})
				return err
			}},
			{"list another member's tokens", func(ctx context.Context) error {
				_, err := e.svc.ListTokens(ctx, &adminv1.ListTokensRequest{Member: "adam"})
				return err
			}},
			{"revoke someone else's token", func(ctx context.Context) error {
				_, err := e.svc.RevokeToken(ctx, &adminv1.RevokeTokenRequest{Id: e.mint(t, "acme/bot")})
				return err
			}},
			{"change a role", func(ctx context.Context) error {
				_, err := e.svc.SetMemberRole(ctx, &adminv1.SetMemberRoleRequest{Handle: "miabot", Role: roleOf("viewer")})
				return err
			}},
			{"remove a member", func(ctx context.Context) error {
				_, err := e.svc.RemoveMember(ctx, &adminv1.RemoveMemberRequest{Handle: "miabot"})
				return err
			}},
			{"invite a person", func(ctx context.Context) error {
				_, err := e.svc.InvitePerson(ctx, &adminv1.InvitePersonRequest{Email: "pat@example.com"})
				return err
			}},
		} {
			if err := tc.call(mia); domainerr.KindOf(err) != domainerr.PermissionDenied {
				t.Errorf("a member in the console tries to %s: %v, want permission denied", tc.name, err)
			}
		}

		own := e.mint(t, "acme/mia")
		minted, err := e.svc.CreateToken(mia, &adminv1.CreateTokenRequest{Member: "miabot", Scopes: []string{"read", "write"}, Label: "ci"})
		if err != nil || minted.GetToken() == "" {
			t.Fatalf("a member mints a token for their assistant = %v, %v", minted, err)
		}
		others := e.mint(t, "acme/alice")
		list, err := e.svc.ListTokens(mia, &adminv1.ListTokensRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, tk := range list.GetTokens() {
			ids = append(ids, tk.GetId())
		}
		if !slices.Contains(ids, own) || !slices.Contains(ids, minted.GetInfo().GetId()) || slices.Contains(ids, others) {
			t.Errorf("ListTokens as mia = %v, want %s and %s but not alice's %s", ids, own, minted.GetInfo().GetId(), others)
		}
		if _, err := e.svc.RevokeToken(mia, &adminv1.RevokeTokenRequest{Id: minted.GetInfo().GetId()}); err != nil {
			t.Errorf("a member revokes their assistant's token = %v", err)
		}
		if !e.isRevoked(t, minted.GetInfo().GetId()) || e.isRevoked(t, others) {
			t.Error("the revocation hit the wrong token")
		}

		// The same member with an admin token keeps the rules of admin tokens.
		if _, err := e.svc.ListMembers(e.as(t, "acme/mia"), &adminv1.ListMembersRequest{}); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("ListMembers as a member with an admin token = %v, want permission denied", err)
		}
	})
}

// TestViewerSelfService: a viewer's assistant is a viewer, and cannot be
// made stronger than its sponsor.
func TestViewerSelfService(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	vic := e.console(t, "acme/vic")
	added, err := e.svc.AddMember(vic, &adminv1.AddMemberRequest{Handle: "vicbot", Kind: assistant, Sponsor: "vic"})
	if err != nil || added.GetMember().GetRole() != roleOf("viewer") {
		t.Fatalf("a viewer adds an assistant = %v, %v; want a viewer", added, err)
	}
	_, err = e.svc.AddMember(vic, &adminv1.AddMemberRequest{Handle: "vicbot2", Kind: assistant, Sponsor: "vic", Role: roleOf("member")})
	want := "Your assistant may have your role (viewer) or a weaker one, and at most member: pick another role."
	if domainerr.Message(err) != want {
		t.Errorf("a viewer adds a member assistant = %v, want %q", err, want)
	}
	if _, err := e.svc.CreateToken(vic, &adminv1.CreateTokenRequest{Member: "vicbot", Scopes: []string{"read"}}); err != nil {
		t.Errorf("a viewer mints a token for their assistant = %v", err)
	}
}

// TestSelfServiceRefusalSentence: a member refused another's token is
// told what they may do, not the rule of admins.
func TestSelfServiceRefusalSentence(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	_, err := e.svc.RevokeToken(e.console(t, "acme/mia"), &adminv1.RevokeTokenRequest{Id: e.mint(t, "acme/alice")})
	want := "You may revoke tokens of yourself and the assistants you sponsor only, and alice is neither: ask an owner or admin of acme."
	if domainerr.Message(err) != want {
		t.Errorf("RevokeToken of the owner's token as mia = %v, want %q", err, want)
	}
}
