package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// operatorEmails lists the operators' emails as ListOperators answers.
func operatorEmails(t *testing.T, e *env, ctx context.Context) string {
	t.Helper()
	resp, err := e.svc.ListOperators(ctx, &adminv1.ListOperatorsRequest{})
	if err != nil {
		t.Fatalf("ListOperators = %v", err)
	}
	var out []string
	for _, o := range resp.GetOperators() {
		out = append(out, o.GetEmail())
	}
	return strings.Join(out, " ")
}

// TestSetOperator: operators grant and revoke the flag by email, oldest
// first in the list; the last one stays; owners of a tenant may do
// neither, nor list them.
func TestSetOperator(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		for _, email := range []string{"olga@example.com", "pat@example.com"} {
			if _, err := client.Account.Create().SetEmail(email).SetOperator(email == "olga@example.com").Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
		op := e.as(t, "operator")
		if got := operatorEmails(t, e, op); got != "olga@example.com" {
			t.Errorf("operators = %q, want olga@example.com", got)
		}
		resp, err := e.svc.SetOperator(op, &adminv1.SetOperatorRequest{Email: " Pat@Example.com", Operator: true})
		if err != nil || !resp.GetOperator() || resp.GetAccount().GetEmail() != "pat@example.com" {
			t.Fatalf("SetOperator(pat, true) = %v, %v; want pat an operator", resp, err)
		}
		if got := operatorEmails(t, e, op); got != "olga@example.com pat@example.com" {
			t.Errorf("operators after granting pat = %q, want olga and pat", got)
		}
		if resp, err := e.svc.SetOperator(op, &adminv1.SetOperatorRequest{Email: "olga@example.com"}); err != nil || resp.GetOperator() {
			t.Errorf("SetOperator(olga, false) = %v, %v; want olga no operator", resp, err)
		}
		_, err = e.svc.SetOperator(op, &adminv1.SetOperatorRequest{Email: "pat@example.com"})
		if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(domainerr.Message(err), "last operator") {
			t.Errorf("revoking the last operator = %v, want a conflict saying pat is the last operator", err)
		}
		if got := operatorEmails(t, e, op); got != "pat@example.com" {
			t.Errorf("operators = %q, want pat still", got)
		}
		// olga again, but disabled: pat is still the last who can sign in.
		if err := client.Account.Update().Where(account.Email("olga@example.com")).SetOperator(true).SetDisabledAt(time.Now()).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.SetOperator(op, &adminv1.SetOperatorRequest{Email: "pat@example.com"}); domainerr.KindOf(err) != domainerr.Conflict {
			t.Errorf("revoking pat beside a disabled operator = %v, want a conflict", err)
		}
		for name, req := range map[string]*adminv1.SetOperatorRequest{
			"no email":      {Operator: true},
			"no account":    {Email: "nobody@example.com", Operator: true},
			"a bad address": {Email: "   ", Operator: true},
		} {
			if _, err := e.svc.SetOperator(op, req); err == nil {
				t.Errorf("SetOperator(%s) = nil, want a refusal", name)
			}
		}

		owner := e.as(t, "acme/alice")
		if _, err := e.svc.SetOperator(owner, &adminv1.SetOperatorRequest{Email: "alice@example.com", Operator: true}); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("an owner's SetOperator = %v, want permission denied", err)
		}
		if _, err := e.svc.ListOperators(owner, &adminv1.ListOperatorsRequest{}); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("an owner's ListOperators = %v, want permission denied", err)
		}
	})
}

// TestOperatorInTheConsole: a person the worker let act as an operator
// (their console session) lists tenants, and a call naming no tenant acts
// on the tenant of their session, as a member's would.
func TestOperatorInTheConsole(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		session := identity.Caller{Tenant: "globex", Member: e.members["globex/gus"], TokenID: "sid-gus", Kind: identity.KindSession}
		ctx := identity.NewOperatorPersonContext(identity.NewContext(context.Background(), session), "gus@example.com")
		if _, err := e.svc.RemoveMember(ctx, &adminv1.RemoveMemberRequest{Tenant: "acme", Handle: "vic"}); err != nil {
			t.Fatal(err)
		}
		tenants, err := e.svc.ListTenants(ctx, &adminv1.ListTenantsRequest{})
		var got []string
		for _, tn := range tenants.GetTenants() {
			got = append(got, fmt.Sprintf("%s:%d", tn.GetSlug(), tn.GetMemberCount()))
		}
		if err != nil || strings.Join(got, " ") != "acme:4 globex:1" {
			t.Errorf("ListTenants as an operator in the console = %q, %v; want acme with 4 current members, globex with 1", got, err)
		}
		own, err := e.svc.GetTenant(ctx, &adminv1.GetTenantRequest{})
		if err != nil || own.GetTenant().GetSlug() != "globex" {
			t.Errorf("GetTenant naming none = %v, %v; want globex, the session's", own, err)
		}
		if _, err := e.svc.ListTenants(e.as(t, "globex/gus"), &adminv1.ListTenantsRequest{}); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("ListTenants as gus the admin = %v, want permission denied", err)
		}
	})
}
