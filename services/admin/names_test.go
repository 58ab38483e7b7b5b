package admin_test

import (
	"strings"
	"testing"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestNamesRefuseHiddenCharacters: the names people read in the console
// and in members_list — tenant names, display names, token labels — refuse
// characters that hide or reorder text (Invalid, which the admin API
// answers with INVALID_ARGUMENT), naming the character and its position;
// accepted names are stored in NFC.
func TestNamesRefuseHiddenCharacters(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		op := e.as(t, "operator")
		alice := e.as(t, "acme/alice")
		for _, tc := range []struct {
			call string
			run  func() error
			want string
		}{
			{"CreateTenant(name with U+202E)", func() error {
				_, err := e.svc.CreateTenant(op, &adminv1.CreateTenantRequest{Slug: "initech", Name: "In\u202eitech", OwnerHandle: "peter"})
				return err
			}, "tenant name has U+202E RIGHT-TO-LEFT OVERRIDE"},
			{"CreateTenant(owner name with ESC)", func() error {
				_, err := e.svc.CreateTenant(op, &adminv1.CreateTenantRequest{Slug: "initech", OwnerHandle: "peter", OwnerName: "Pe\x1b[8mter"})
				return err
			}, "owner name has U+001B ESCAPE"},
			{"AddMember(display name with a zero-width space)", func() error {
				_, err := e.svc.AddMember(alice, &adminv1.AddMemberRequest{Handle: "zoe", DisplayName: "Zo\u200be"})
				return err
			}, "display name has U+200B ZERO WIDTH SPACE"},
			{"AddMember(display name with a tag character)", func() error {
				_, err := e.svc.AddMember(alice, &adminv1.AddMemberRequest{Handle: "zoe", DisplayName: "Zo\U000E0041e"})
				return err
			}, "display name has U+E0041 TAG LATIN CAPITAL LETTER A"},
			{"CreateToken(label with an isolate)", func() error {
				_, err := e.svc.CreateToken(alice, &adminv1.CreateTokenRequest{Member: "alice", Scopes: []string{"read"}, Label: "la\u2068ptop"})
				return err
			}, "the label has U+2068 FIRST STRONG ISOLATE"},
		} {
			err := tc.run()
			if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(domainerr.Message(err), tc.want) || !strings.Contains(domainerr.Message(err), "at character 3") {
				t.Errorf("%s = %v, want Invalid saying %q at character 3", tc.call, err, tc.want)
			}
		}
		added, err := e.svc.AddMember(alice, &adminv1.AddMemberRequest{Handle: "zoe", DisplayName: " Zoe\u0308 "})
		if err != nil || added.GetMember().GetDisplayName() != "Zoë" {
			t.Errorf("AddMember(Zoe + U+0308) = %v, %v; want display name %q, trimmed and in NFC", added, err, "Zoë")
		}
	})
}
