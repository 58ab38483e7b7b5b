package tests

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestSignInByFirstStartLink: the owner signs in to the console by the
// link the first start prints, once; the session then acts as the owner
// on the board and the admin API through the worker, as the console
// does, until it signs out. On the embedded default and on PostgreSQL
// with a NATS server.
func TestSignInByFirstStartLink(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			sys, welcome := startFirst(t, s)
			ctx := context.Background()
			u, err := url.Parse(welcome.SignInLink)
			if err != nil || u.Path != "/signin/link" || !strings.HasPrefix(welcome.SignInLink, sys.Config().PublicURL+"/") || u.Query().Get("k") == "" {
				t.Fatalf("first start sign-in link = %q, want %s/signin/link?k=<secret>", welcome.SignInLink, sys.Config().PublicURL)
			}
			conn, err := sys.WorkerConn()
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			sessions := taskwirev1.NewSessionServiceClient(conn)
			link := &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Link{Link: u.Query().Get("k")}}
			in, err := sessions.SignIn(ctx, link)
			if err != nil {
				t.Fatalf("SignIn(first start link) = %v, want a session", err)
			}
			ms := in.GetMemberships()
			if len(ms) != 1 || ms[0].GetTenant() != welcome.Tenant || ms[0].GetHandle() != welcome.Owner || ms[0].GetRole() != taskwirev1.MemberRole_MEMBER_ROLE_OWNER {
				t.Fatalf("SignIn(first start link) memberships = %v, want owner %s of %s", ms, welcome.Owner, welcome.Tenant)
			}
			if _, err := sessions.SignIn(ctx, link); status.Code(err) != codes.Unauthenticated || !strings.Contains(status.Convert(err).Message(), "used already") {
				t.Errorf("SignIn(the link again) = %v, want Unauthenticated saying it was used already", err)
			}
			if _, err := sessions.CheckSession(ctx, &taskwirev1.CheckSessionRequest{Cookie: in.GetCookie()}); err != nil {
				t.Errorf("CheckSession = %v, want the session", err)
			}

			console := identity.AppendToOutgoing(ctx, identity.Caller{
				Tenant: ms[0].GetTenant(), Member: int(ms[0].GetMemberId()), Scopes: []string{"read", "comment", "write"},
				TokenID: in.GetSession().GetId(), Kind: identity.KindSession,
			})
			boards := taskwirev1.NewBoardServiceClient(conn)
			admin := adminv1.NewAdminServiceClient(conn)
			if _, err := boards.ListBoards(console, &taskwirev1.ListBoardsRequest{}); err != nil {
				t.Errorf("ListBoards as the signed-in owner = %v, want the boards", err)
			}
			if _, err := admin.ListMembers(console, &adminv1.ListMembersRequest{}); err != nil {
				t.Errorf("ListMembers as the signed-in owner = %v, want the members", err)
			}

			if _, err := sessions.SignOut(ctx, &taskwirev1.SignOutRequest{Cookie: in.GetCookie()}); err != nil {
				t.Fatal(err)
			}
			if _, err := boards.ListBoards(console, &taskwirev1.ListBoardsRequest{}); status.Code(err) != codes.Unauthenticated {
				t.Errorf("ListBoards after signing out = %v, want Unauthenticated", err)
			}
			if _, err := sessions.CheckSession(ctx, &taskwirev1.CheckSessionRequest{Cookie: in.GetCookie()}); status.Code(err) != codes.Unauthenticated {
				t.Errorf("CheckSession after signing out = %v, want Unauthenticated", err)
			}
		})
	}
}

// startFirst starts a system of s as serve does, stopped when the test
// ends, and returns it with what its first start shows.
func startFirst(t *testing.T, s nodetest.Setup) (*node.System, *node.Welcome) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := nodetest.Config(t.TempDir(), ln, slog.New(&nodetest.LogSink{}))
	if s.Postgres {
		if s.NATSURL == "" || os.Getenv(storetest.EnvPostgres) == "" {
			ln.Close()
			t.Skip("TASKWIRE_TEST_POSTGRES or TASKWIRE_TEST_NATS not set: skipping the PostgreSQL + NATS server deployment")
		}
		cfg.DB, cfg.NATS = storetest.DSN(t, storetest.Postgres), s.NATSURL
	}
	sys, err := nodetest.StartSystem(cfg)
	if err != nil {
		t.Fatalf("StartSystem: %v", err)
	}
	t.Cleanup(func() { sys.Stop(context.Background()) })
	welcome, err := sys.Welcome(context.Background())
	if err != nil || welcome == nil {
		t.Fatalf("first start: welcome %v, %v", welcome, err)
	}
	return sys, welcome
}
