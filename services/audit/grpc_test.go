package audit_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/audit"
)

// TestListAudit: audit_list reads the caller's own tenant, for owners and
// admins only, and "me" is the caller.
func TestListAudit(t *testing.T) {
	client := storetest.Open(t, storetest.SQLite)
	e := newEnv(t, client)
	e.record(t,
		e.call("acme/alice", 0, "tasks_get", audit.OutcomeOK),
		e.call("acme/bot", 1, "tasks_move", audit.OutcomeRefused),
		e.call("globex/alice", 2, "tasks_get", audit.OutcomeOK),
	)
	as := func(tenant, handle, role string) context.Context {
		return identity.WithAccess(context.Background(), identity.Access{
			TenantID: e.tenants[tenant], Tenant: tenant, MemberID: e.members[tenant+"/"+handle], Handle: handle, Kind: "human", Role: role,
		})
	}

	resp, err := e.store.ListAudit(as("acme", "alice", "admin"), &taskwirev1.ListAuditRequest{})
	if err != nil {
		t.Fatalf("admin ListAudit = %v", err)
	}
	if n := len(resp.GetItems()); n != 2 {
		t.Fatalf("admin ListAudit = %d events, want acme's 2", n)
	}
	bot := resp.GetItems()[0]
	if bot.GetMember() != "bot" || bot.GetKind() != taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT || bot.GetSponsor() != "alice" ||
		bot.GetOutcome() != "refused" || bot.GetTool() != "tasks_move" || bot.GetTargets()[0] != "ref=T-1" ||
		!bot.GetOccurredAt().AsTime().Equal(e.base.Add(time.Second)) || bot.GetDurationMs() != 1 {
		t.Errorf("newest event = %v, want bot's refused tasks_move of T-1", bot)
	}

	resp, err = e.store.ListAudit(as("acme", "alice", "owner"), &taskwirev1.ListAuditRequest{
		Member: "me", Until: timestamppb.New(e.base.Add(time.Hour)), Limit: 1,
	})
	if err != nil || len(resp.GetItems()) != 1 || resp.GetItems()[0].GetMember() != "alice" || resp.GetNextCursor() != "" {
		t.Errorf("owner ListAudit member me = %v, %v; want alice's one event, no cursor", resp, err)
	}

	for _, role := range []string{"member", "viewer"} {
		_, err := e.store.ListAudit(as("acme", "vic", role), &taskwirev1.ListAuditRequest{})
		want := "You are a " + role + " on tenant acme, and only owners and admins may list the audit log (audit_list). Ask an owner or admin of acme if you need it done."
		if domainerr.KindOf(err) != domainerr.PermissionDenied || domainerr.Message(err) != want {
			t.Errorf("%s ListAudit = %v, want PermissionDenied %q", role, err, want)
		}
	}
	if _, err := e.store.ListAudit(context.Background(), &taskwirev1.ListAuditRequest{}); err == nil {
		t.Error("ListAudit without an Access succeeded")
	}
}
