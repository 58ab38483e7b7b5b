package admin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestInvitePerson(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		invite := func(ctx context.Context, tenant, email string, role string) (*adminv1.InvitePersonResponse, error) {
			req := &adminv1.InvitePersonRequest{Tenant: tenant, Email: email}
			if role != "" {
				req.Role = roleOf(role)
			}
			return e.svc.InvitePerson(ctx, req)
		}
		resp, err := invite(e.console(t, "acme/alice"), "acme", " Nora.Smith@Example.com", "")
		if err != nil {
			t.Fatalf("InvitePerson(nora) = %v, want an invitation", err)
		}
		m := resp.GetMember()
		if m.GetHandle() != "nora-smith" || m.GetDisplayName() != "nora.smith" || m.GetRole() != taskwirev1.MemberRole_MEMBER_ROLE_MEMBER ||
			m.GetKind() != taskwirev1.MemberKind_MEMBER_KIND_HUMAN || resp.GetEmailed() {
			t.Errorf("InvitePerson(nora) = %v, want human member nora-smith (nora.smith), not emailed", resp)
		}
		if exp := resp.GetExpireTime().AsTime(); exp.Before(time.Now().Add(7*24*time.Hour - time.Minute)) {
			t.Errorf("InvitePerson expires %v, want in 7 days", exp)
		}
		ms, acc := signInBy(t, client, resp.GetSecret())
		if strings.Join(ms, " ") != "acme/nora-smith" || acc.GetEmail() != "nora.smith@example.com" {
			t.Errorf("signing in by the invitation = %v as %s, want acme/nora-smith as nora.smith@example.com", ms, acc.GetEmail())
		}

		_, err = invite(e.as(t, "acme/adam"), "acme", "NORA.SMITH@example.com", "viewer")
		if status.Code(err) != codes.AlreadyExists {
			t.Errorf("inviting nora again = %v, want AlreadyExists", err)
		}
		// Another tenant invites the same person: the same account.
		resp, err = invite(e.as(t, "globex/gus"), "", "nora.smith@example.com", "admin")
		if err != nil {
			t.Fatalf("InvitePerson(nora) to globex = %v, want an invitation", err)
		}
		ms, again := signInBy(t, client, resp.GetSecret())
		if again.GetId() != acc.GetId() || strings.Join(ms, " ") != "acme/nora-smith globex/nora-smith" {
			t.Errorf("nora's globex invitation signs in account %d with %v, want %d with both tenants", again.GetId(), ms, acc.GetId())
		}

		for _, c := range []struct {
			name, who, email, role string
			kind                   domainerr.Kind
		}{
			{"an admin inviting an owner", "acme/adam", "olga@example.com", "owner", domainerr.PermissionDenied},
			{"a member", "acme/mia", "pia@example.com", "", domainerr.PermissionDenied},
			{"no email", "acme/alice", "not an email", "", domainerr.Invalid},
			{"a handle taken", "acme/alice", "mia@elsewhere.example", "", domainerr.Conflict},
		} {
			if _, err := invite(e.as(t, c.who), "acme", c.email, c.role); domainerr.KindOf(err) != c.kind {
				t.Errorf("InvitePerson by %s = %v, want %v", c.name, err, c.kind)
			}
		}
		if _, err := invite(e.as(t, "acme/alice"), "acme", "olga@example.com", "owner"); err != nil {
			t.Errorf("an owner inviting an owner = %v, want an invitation", err)
		}
	})
}
