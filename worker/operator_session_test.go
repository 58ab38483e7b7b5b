package worker

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestOperatorSessions: the console session of an operator's account
// lists tenants through the admin API, and the audit log names the
// person; a session of another account may not; on the board the
// operator is the member they are, with no operator mark.
func TestOperatorSessions(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newSessionEnv(t, client)
		ctx := context.Background()
		if err := client.Account.Update().Where(account.Email("alice@example.com")).SetOperator(true).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		store, err := tokens.New(tokens.Config{Client: client, Logger: storetest.Logger()})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := admin.New(admin.Config{Client: client, Tokens: store, Logger: storetest.Logger()})
		if err != nil {
			t.Fatal(err)
		}
		auditor := &fakeAuditor{}
		w := startWorker(t, func(c *Config) {
			c.Tokens, c.Sessions, c.Auditor = &fakeTokens{}, e.svc, auditor
			c.OperatorServices = []string{admin.ServiceName}
			c.Register = []func(grpc.ServiceRegistrar){svc.Register, func(r grpc.ServiceRegistrar) {
				taskwirev1.RegisterBoardServiceServer(r, operatorBoard{})
			}}
		})
		adminClient := adminv1.NewAdminServiceClient(w.conn)
		_, alice := e.signIn(t, "alice")
		_, mia := e.signIn(t, "mia")
		as := func(sid, handle string) context.Context {
			return identity.AppendToOutgoing(ctx, e.console(sid, handle))
		}

		resp, err := adminClient.ListTenants(as(alice, "alice"), &adminv1.ListTenantsRequest{})
		if err != nil || len(resp.GetTenants()) != 1 || resp.GetTenants()[0].GetSlug() != "acme" {
			t.Errorf("ListTenants in alice's session (an operator) = %v, %v; want acme", resp, err)
		}
		got := auditor.recorded()
		if len(got) != 1 || got[0].Kind != audit.KindOperator || got[0].Member != "alice@example.com" || got[0].TokenID != alice {
			t.Errorf("audit events of the operator's call = %+v, want one of the operator alice@example.com with session %s", got, alice)
		}
		if _, err := adminClient.ListTenants(as(mia, "mia"), &adminv1.ListTenantsRequest{}); status.Code(err) != codes.PermissionDenied {
			t.Errorf("ListTenants in mia's session (no operator) = %v, want PermissionDenied", err)
		}
		task, err := w.client.CreateTask(as(alice, "alice"), &taskwirev1.CreateTaskRequest{Title: "x"})
		if err != nil || task.GetTask().GetTitle() != "false" {
			t.Errorf("a board call in the operator's session = %v, %v; want it through as the member's, no operator's", task, err)
		}
	})
}
