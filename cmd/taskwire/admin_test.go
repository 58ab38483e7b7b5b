package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestAdminAPI: an operator creates a tenant; its owner adds an assistant
// with a sponsor and mints it a token; the assistant works over MCP; the
// owner lowers its role and its tools shrink at once (its listen stream
// is told); the owner removes it and its token is refused everywhere. An
// owner cannot see another tenant, and the operator secret opens nothing
// but the admin API.
func TestAdminAPI(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			a := newAdminClient(t, h)
			op := h.OperatorSecret(t)

			// The operator creates acme, with the CLI.
			out := a.cliOK(op, "tenants", "create", "acme", "--name", "Acme", "--owner", "alice", "--json")
			var created struct{ OwnerToken string }
			if err := json.Unmarshal([]byte(out), &created); err != nil || created.OwnerToken == "" {
				t.Fatalf("tenants create --json printed %s (%v), want the owner's token", out, err)
			}
			ownerMCP := created.OwnerToken
			if out := a.cliOK(op, "tenants", "list"); !strings.Contains(out, "acme") || !strings.Contains(out, "default") {
				t.Errorf("tenants list = %q, want acme and default", out)
			}

			// The owner's first token is an MCP token: it never
			// administers, and the refusal says how to get a credential
			// that does. The operator mints alice an admin token, which
			// the MCP endpoint refuses in turn.
			code, body := a.Post(ownerMCP, "ListMembers", `{}`)
			if want := "this is an MCP token, which cannot administer: " + adminedge.HowToGetCredential; code != http.StatusUnauthorized || body["message"] != want {
				t.Errorf("the owner's MCP token on the admin API = %d %v, want 401 %q", code, body, want)
			}
			if _, err := a.GRPC.ListMembers(nodetest.AsGRPC(ownerMCP), &adminv1.ListMembersRequest{}); status.Code(err) != codes.Unauthenticated {
				t.Errorf("the owner's MCP token over gRPC = %v, want Unauthenticated", err)
			}
			owner := strings.TrimSpace(a.cliOK(op, "tokens", "create", "--tenant", "acme", "--member", "alice", "--admin"))
			if s := h.MCPStatus(t, owner); s != http.StatusUnauthorized {
				t.Errorf("the owner's admin token on the MCP endpoint = %d, want 401", s)
			}

			// The owner adds an assistant over gRPC, and mints its token
			// over JSON.
			added, err := a.GRPC.AddMember(nodetest.AsGRPC(owner), &adminv1.AddMemberRequest{
				Handle: "claude", DisplayName: "Claude", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "alice",
			})
			if err != nil || added.GetMember().GetSponsor() != "alice" {
				t.Fatalf("AddMember over gRPC = %v, %v; want claude sponsored by alice", added, err)
			}
			code, minted := a.Post(owner, "CreateToken", `{"member":"claude","scopes":["read","comment","write"],"label":"laptop"}`)
			claude, _ := minted["token"].(string)
			if code != http.StatusOK || claude == "" {
				t.Fatalf("CreateToken = %d %v, want a token", code, minted)
			}

			// The assistant works, and hears of its changes.
			changed := make(chan struct{}, 16)
			cs, _ := h.Client(t, claude, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Ship the admin API"})
			if tools := nodetest.ListedTools(t, cs); !slices.Contains(tools, "tasks_create") {
				t.Fatalf("claude's tools = %v, want tasks_create among them", tools)
			}

			// The owner lowers its role with the CLI: the next tools/list
			// shrinks, and the listen stream is told (repeated until the
			// stream has subscribed: setting the same role tells again).
			poll.Until(t, 10*time.Second, "claude's listen stream to hear of its new role", func() bool {
				a.cliOK(owner, "members", "set-role", "claude", "viewer")
				select {
				case <-changed:
					return true
				case <-time.After(50 * time.Millisecond):
					return false
				}
			})
			if tools := nodetest.ListedTools(t, cs); slices.Contains(tools, "tasks_create") || !slices.Contains(tools, "tasks_list") {
				t.Errorf("claude's tools as a viewer = %v, want reading tools only", tools)
			}

			// The owner removes it: its token is refused by the MCP
			// endpoint and by the admin API.
			if out := a.cliOK(owner, "members", "remove", "claude"); out != "removed claude; revoked 1 token(s)\n" {
				t.Errorf("members remove = %q", out)
			}
			poll.Until(t, 10*time.Second, "the MCP endpoint to refuse the removed assistant", func() bool {
				return h.MCPStatus(t, claude) == http.StatusUnauthorized
			})
			if code, body := a.Post(claude, "GetTenant", `{}`); code != http.StatusUnauthorized {
				t.Errorf("the removed assistant's token on the admin API = %d %v, want 401", code, body)
			}
			if out := a.cliOK(owner, "members", "list", "--removed"); !strings.Contains(out, "claude") {
				t.Errorf("members list --removed = %q, want claude", out)
			}

			// Another tenant is not found, in the words of one that does
			// not exist, however it is asked.
			_, errOther := a.cli(owner, "tenants", "get", "default")
			_, errNone := a.cli(owner, "tenants", "get", "nope")
			if errOther == nil || errOther.Error() != `no tenant "default"` || errNone == nil || errNone.Error() != `no tenant "nope"` {
				t.Errorf("acme's owner getting default and nope = %v, %v; want not found, alike", errOther, errNone)
			}
			code, body = a.Post(owner, "ListMembers", `{"tenant":"default"}`)
			if code != http.StatusNotFound || body["code"] != "not_found" {
				t.Errorf("acme's owner listing default's members = %d %v, want 404", code, body)
			}
			if _, err := a.GRPC.RemoveMember(nodetest.AsGRPC(owner), &adminv1.RemoveMemberRequest{Tenant: "default", Handle: "owner"}); err == nil {
				t.Errorf("acme's owner removed default's owner over gRPC")
			}

			// Refusals read as sentences, with fitting statuses.
			code, body = a.Post(owner, "ListTenants", `{}`)
			if code != http.StatusForbidden || body["message"] != "Only the platform operators of this deployment can list tenants; you act on tenant acme only." {
				t.Errorf("an owner listing tenants = %d %v, want 403 with a sentence", code, body)
			}
			code, body = a.Post(owner, "RemoveMember", `{"handle":"alice"}`)
			if code != http.StatusConflict || body["code"] != "failed_precondition" {
				t.Errorf("removing the last owner = %d %v, want 409 failed_precondition", code, body)
			}

			// The operator secret is no MCP token.
			if s := h.MCPStatus(t, op); s != http.StatusUnauthorized {
				t.Errorf("the operator secret on the MCP endpoint = %d, want 401", s)
			}

			// The JWKS has the signing key.
			resp, err := http.Get(a.Base + "/.well-known/jwks.json")
			if err != nil {
				t.Fatal(err)
			}
			jwks, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(jwks), `"kid":"`+h.Sys.Key.ID+`"`) {
				t.Errorf("JWKS = %s, want key %s", jwks, h.Sys.Key.ID)
			}
		})
	}
}

// TestAdminCLIErrors: the CLI prints the server's sentence and fails;
// without a credential it says what to pass.
func TestAdminCLIErrors(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	if _, err := a.cli(h.AdminToken(t, "owner"), "members", "set-role", "owner", "viewer"); err == nil ||
		err.Error() != `owner is the last owner of default and cannot be demoted: make another member owner first` {
		t.Errorf("demoting the last owner with the CLI = %v", err)
	}
	var out, errOut bytes.Buffer
	t.Setenv("TASKWIRE_DATA", t.TempDir())
	t.Setenv("TASKWIRE_ADMIN_TOKEN", "")
	t.Setenv("TASKWIRE_OPERATOR_SECRET_FILE", "")
	err := run(context.Background(), []string{"admin", "tenants", "list", "--url", a.Base}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--token") || !strings.Contains(err.Error(), "taskwire token create --member HANDLE --admin") {
		t.Errorf("admin without a credential = %v, want a hint to pass --token with an admin token, and how to mint one", err)
	}
	// The first start's token is an MCP token: the CLI's refusal says how
	// to get an admin credential.
	if _, err := a.cli(h.Token, "members", "list"); err == nil || !strings.Contains(err.Error(), adminedge.HowToGetCredential) {
		t.Errorf("admin with an MCP token = %v, want the refusal with how to get an admin credential", err)
	}
	path := h.Sys.Config().OperatorSecretFile
	if err := run(context.Background(), []string{"admin", "tenants", "list", "--url", a.Base, "--operator-secret-file", path}, &out, &errOut); err != nil {
		t.Errorf("admin with --operator-secret-file = %v", err)
	}
	if info, err := os.Stat(path); err != nil {
		t.Error(err)
	} else if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("the operator secret file has mode %04o, want 0600", mode)
	}
}
