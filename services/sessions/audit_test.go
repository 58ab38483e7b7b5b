package sessions_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/sessions"
)

// auditLines are a tenant's audit events, oldest first, as
// "member method outcome token-is-session error".
func (e *env) auditLines(t *testing.T, tenant, sid string) []string {
	t.Helper()
	events, _, err := e.audit.List(context.Background(), tenant, audit.Filter{}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		out = append(out, fmt.Sprintf("%s %s %s %v %s", ev.Member, ev.Method, ev.Outcome, sid != "" && ev.TokenID == sid, ev.Error))
	}
	return out
}

// Sign-ins, refused sign-ins of a known account and sign-outs are in the
// audit log of every tenant the account is a member of; an unknown email
// is in none.
func TestSignInsAreAudited(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		e.svc.SignIn(ctx, passwordReq(aliceEmail, "not her password"))
		e.svc.SignIn(ctx, passwordReq("stranger@example.com", alicePassword))
		resp := e.signIn(t, aliceEmail, alicePassword)
		if _, err := e.svc.SignOut(ctx, &taskwirev1.SignOutRequest{Cookie: resp.GetCookie()}); err != nil {
			t.Fatal(err)
		}
		sid := resp.GetSession().GetId()
		for tenant, handle := range map[string]string{"acme": "alice", "globex": "al"} {
			want := []string{
				handle + " " + sessions.MethodSignIn + " refused false wrong password",
				handle + " " + sessions.MethodSignIn + " ok true ",
				handle + " " + sessions.MethodSignOut + " ok true ",
			}
			if got := e.auditLines(t, tenant, sid); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("audit log of %s =\n%s\nwant\n%s", tenant, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	})
}
