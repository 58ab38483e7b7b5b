package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/services/tokens"
)

// The commands of `taskwire admin`, one per RPC. Each parses its flags,
// calls the API, and prints a table, or the JSON with --json.

func (a *adminCmd) tenantsCreate(args []string) error {
	name := a.fs.String("name", "", "the tenant's display name (default the slug)")
	owner := a.fs.String("owner", "", "handle of the first owner, a person (required)")
	ownerName := a.fs.String("owner-name", "", "the first owner's display name (default the handle)")
	ttl := a.fs.Duration("owner-token-ttl", 0, "how long the owner's first (MCP) token is valid, at most the server's --max-token-ttl (default 2160h)")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *owner == "" {
		return errors.New("name the tenant's first owner, a person, with --owner HANDLE")
	}
	if err := checkTTLFlag(a.fs, "owner-token-ttl", *ttl, 0); err != nil {
		return err
	}
	resp := &adminv1.CreateTenantResponse{}
	if err := a.call("CreateTenant", &adminv1.CreateTenantRequest{
		Slug: pos[0], Name: *name, OwnerHandle: *owner, OwnerName: *ownerName, OwnerTokenTtl: ttlProto(*ttl),
	}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	t, o := resp.GetTenant(), resp.GetOwner()
	fmt.Fprintf(a.stdout, "Created tenant %s (%s) with owner %s and board main.\n", t.GetSlug(), t.GetName(), o.GetHandle())
	fmt.Fprintf(a.stdout, "The owner's MCP token is shown this once; hand it over safely. It expires %s.\n\n  %s\n",
		resp.GetOwnerTokenInfo().GetExpireTime().AsTime().Format(time.DateOnly), resp.GetOwnerToken())
	fmt.Fprintf(a.stdout, "\nIt works on MCP only. To let %s administer %s, mint an admin token:\n  taskwire admin tokens create --tenant %s --member %s --admin\n",
		o.GetHandle(), t.GetSlug(), t.GetSlug(), o.GetHandle())
	return nil
}

func (a *adminCmd) tenantsGet(args []string) error {
	pos, err := a.parse(args, 0, 1)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		a.tenant = pos[0]
	}
	resp := &adminv1.GetTenantResponse{}
	if err := a.call("GetTenant", &adminv1.GetTenantRequest{Tenant: a.tenant}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	return printTenants(a.stdout, []*adminv1.Tenant{resp.GetTenant()})
}

func (a *adminCmd) tenantsList(args []string) error {
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	all := &adminv1.ListTenantsResponse{}
	for page := ""; ; {
		resp := &adminv1.ListTenantsResponse{}
		if err := a.call("ListTenants", &adminv1.ListTenantsRequest{PageToken: page}, resp); err != nil {
			return err
		}
		all.Tenants = append(all.Tenants, resp.GetTenants()...)
		if page = resp.GetNextPageToken(); page == "" {
			break
		}
	}
	if a.asJSON {
		return a.printJSON(all)
	}
	return printTenants(a.stdout, all.GetTenants())
}

func (a *adminCmd) membersAdd(args []string) error {
	name := a.fs.String("name", "", "display name (default the handle)")
	kind := a.fs.String("kind", "human", "human or assistant")
	role := a.fs.String("role", "member", "owner, admin, member or viewer")
	sponsor := a.fs.String("sponsor", "", "for an assistant: the handle of the person who sponsors it")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	k, err := parseKind(*kind)
	if err != nil {
		return fmt.Errorf("--kind: %w", err)
	}
	r, err := parseRole(*role)
	if err != nil {
		return fmt.Errorf("--role: %w", err)
	}
	resp := &adminv1.AddMemberResponse{}
	if err := a.call("AddMember", &adminv1.AddMemberRequest{
		Tenant: a.tenant, Handle: pos[0], DisplayName: *name, Kind: k, Role: r, Sponsor: *sponsor,
	}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	return printMembers(a.stdout, []*adminv1.Member{resp.GetMember()})
}

func (a *adminCmd) membersList(args []string) error {
	removed := a.fs.Bool("removed", false, "also list removed members")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	all := &adminv1.ListMembersResponse{}
	for page := ""; ; {
		resp := &adminv1.ListMembersResponse{}
		if err := a.call("ListMembers", &adminv1.ListMembersRequest{Tenant: a.tenant, ShowRemoved: *removed, PageToken: page}, resp); err != nil {
			return err
		}
		all.Members = append(all.Members, resp.GetMembers()...)
		if page = resp.GetNextPageToken(); page == "" {
			break
		}
	}
	if a.asJSON {
		return a.printJSON(all)
	}
	return printMembers(a.stdout, all.GetMembers())
}

func (a *adminCmd) membersSetRole(args []string) error {
	pos, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	r, err := parseRole(pos[1])
	if err != nil {
		return err
	}
	resp := &adminv1.SetMemberRoleResponse{}
	if err := a.call("SetMemberRole", &adminv1.SetMemberRoleRequest{Tenant: a.tenant, Handle: pos[0], Role: r}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	return printMembers(a.stdout, []*adminv1.Member{resp.GetMember()})
}

func (a *adminCmd) membersRemove(args []string) error {
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	resp := &adminv1.RemoveMemberResponse{}
	if err := a.call("RemoveMember", &adminv1.RemoveMemberRequest{Tenant: a.tenant, Handle: pos[0]}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	fmt.Fprintf(a.stdout, "removed %s; revoked %d token(s)\n", resp.GetMember().GetHandle(), resp.GetRevokedTokens())
	return nil
}

func (a *adminCmd) tokensCreate(args []string) error {
	var create createFlags
	create.declare(a.fs)
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	req, err := create.request(a.fs, a.tenant, 0) // the server applies its maximum
	if err != nil {
		return err
	}
	return a.createToken(req)
}

// createToken mints req through the admin API.
func (a *adminCmd) createToken(req tokenRequest) error {
	resp := &adminv1.CreateTokenResponse{}
	if err := a.call("CreateToken", &adminv1.CreateTokenRequest{
		Tenant: req.tenant, Member: req.member, Scopes: req.scopes, Toolsets: req.toolsets, Ttl: ttlProto(req.ttl), Label: req.label, Admin: req.admin,
	}, resp); err != nil {
		return memberHint(err)
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	// The token alone on stdout, so it can be captured; the rest on stderr.
	fmt.Fprintln(a.stdout, resp.GetToken())
	printCreated(a.stderr, resp.GetToken(), tokenInfo(resp.GetInfo()), orDefault(req.tenant, tokenTenant(resp.GetToken())), strings.TrimSuffix(a.url, "/"))
	return nil
}

// ttlProto is a lifetime flag's value for a request: nil for 0, a flag
// left out (checkTTLFlag refuses 0 given), so the server applies its
// default.
func ttlProto(d time.Duration) *durationpb.Duration {
	if d == 0 {
		return nil
	}
	return durationpb.New(d)
}

// tokenInfo is a token of the admin API as the token store describes it.
func tokenInfo(t *adminv1.Token) tokens.Info {
	i := tokens.Info{
		ID: t.GetId(), Member: t.GetMember(), Scopes: t.GetScopes(), Toolsets: t.GetToolsets(), Label: t.GetLabel(), Admin: t.GetAdmin(),
		CreatedAt: t.GetCreateTime().AsTime(), ExpiresAt: t.GetExpireTime().AsTime(),
	}
	if t.GetLastUseTime() != nil {
		used := t.GetLastUseTime().AsTime()
		i.LastUsedAt = &used
	}
	if t.GetRevokeTime() != nil {
		revoked := t.GetRevokeTime().AsTime()
		i.RevokedAt = &revoked
	}
	return i
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func (a *adminCmd) tokensList(args []string) error {
	member := a.fs.String("member", "", "list only the tokens of the member with this handle")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	list, err := a.listTokens(a.tenant, *member)
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(&adminv1.ListTokensResponse{Tokens: list})
	}
	return printAdminTokens(a.stdout, list)
}

func (a *adminCmd) tokensRevoke(args []string) error {
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	resp := &adminv1.RevokeTokenResponse{}
	if err := a.call("RevokeToken", &adminv1.RevokeTokenRequest{Tenant: a.tenant, Id: pos[0]}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	fmt.Fprintf(a.stdout, "revoked token %s\n", pos[0])
	return nil
}

func (a *adminCmd) tokensRevokeMember(args []string) error {
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	resp := &adminv1.RevokeMemberTokensResponse{}
	if err := a.call("RevokeMemberTokens", &adminv1.RevokeMemberTokensRequest{Tenant: a.tenant, Member: pos[0]}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	fmt.Fprintf(a.stdout, "revoked %d token(s) of %s\n", resp.GetRevokedTokens(), pos[0])
	return nil
}

// parseRole reads a role as people write it, e.g. "admin".
func parseRole(s string) (taskwirev1.MemberRole, error) {
	v, ok := taskwirev1.MemberRole_value["MEMBER_ROLE_"+strings.ToUpper(s)]
	if !ok || v == 0 {
		return 0, fmt.Errorf("role %q: use owner, admin, member or viewer", s)
	}
	return taskwirev1.MemberRole(v), nil
}

// parseKind reads a member kind: human or assistant.
func parseKind(s string) (taskwirev1.MemberKind, error) {
	v, ok := taskwirev1.MemberKind_value["MEMBER_KIND_"+strings.ToUpper(s)]
	if !ok || v == 0 {
		return 0, fmt.Errorf("kind %q: use human or assistant", s)
	}
	return taskwirev1.MemberKind(v), nil
}
