package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// membersData is what the Members page shows.
type membersData struct {
	Members []memberView
	// Manages is whether the person is an owner or admin: they invite,
	// change roles and remove; everyone adds their own assistants.
	Manages bool
	Me      string // the person's handle
	Roles   []string
	// AssistantRoles are the roles the person may give their assistant:
	// at most member, and no stronger than their own.
	AssistantRoles []string
	// Invited is the person just invited, with their one-time link:
	// shown on this response only.
	Invited *invitation
}

type invitation struct {
	Member *adminv1.Member
	Link   string
	// Emailed: the link was also sent to the person; else EmailError
	// says why not, when the deployment sends mail at all.
	Emailed    bool
	EmailError string
}

// memberView is a member as the page shows it.
type memberView struct {
	Handle, Name, Sponsor string
	Kind                  string // "person" or "assistant"
	Role                  string // "owner", …
}

func viewMember(m *adminv1.Member) memberView {
	return memberView{Handle: m.GetHandle(), Name: m.GetDisplayName(), Sponsor: m.GetSponsor(),
		Kind: memberKind(m.GetKind()), Role: enumName(m.GetRole().String(), "MEMBER_ROLE_")}
}

// Roles a form may pick, strongest first; the service refuses what the
// person may not grant (admins cannot make owners, assistants are at most
// members).
var formRoles = []string{"owner", "admin", "member", "viewer"}

// membersPage lists the tenant's people and assistants.
func (c *Console) membersPage(w http.ResponseWriter, r *http.Request, v *visit) {
	c.showMembers(w, r, v, http.StatusOK, "", nil)
}

func (c *Console) showMembers(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string, inv *invitation) {
	list, err := c.allMembers(v.ctx(r))
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	data := membersData{Manages: manages(v), Me: v.member.GetHandle(), Roles: formRoles, Invited: inv}
	data.AssistantRoles = formRoles[2:]
	if v.member.GetRole() == taskwirev1.MemberRole_MEMBER_ROLE_VIEWER {
		data.AssistantRoles = formRoles[3:]
	}
	for _, m := range list {
		data.Members = append(data.Members, viewMember(m))
	}
	c.render(w, r, code, "members", page{Title: "Members", Visit: v, Message: msg, Data: data})
}

// allMembers reads the tenant's current members, oldest first.
func (c *Console) allMembers(ctx context.Context) ([]*adminv1.Member, error) {
	return readAll(func(next string) ([]*adminv1.Member, string, error) {
		resp, err := c.admin.ListMembers(ctx, &adminv1.ListMembersRequest{PageSize: 100, PageToken: next})
		return resp.GetMembers(), resp.GetNextPageToken(), err
	})
}

// readAll reads every page of a list, up to 50: page returns the items
// after the page token next, and the token of the page after them.
func readAll[T any](page func(next string) ([]T, string, error)) ([]T, error) {
	var all []T
	next := ""
	for range 50 {
		items, after, err := page(next)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next = after; next == "" {
			break
		}
	}
	return all, nil
}

// manages reports whether v's member is an owner or admin.
func manages(v *visit) bool {
	r := v.member.GetRole()
	return r == taskwirev1.MemberRole_MEMBER_ROLE_OWNER || r == taskwirev1.MemberRole_MEMBER_ROLE_ADMIN
}

// invitePerson adds a person by email and shows their one-time link, on
// this response only: it is never put into a URL.
func (c *Console) invitePerson(w http.ResponseWriter, r *http.Request, v *visit) {
	resp, err := c.admin.InvitePerson(v.ctx(r), &adminv1.InvitePersonRequest{
		Email: strings.TrimSpace(r.PostFormValue("email")), DisplayName: r.PostFormValue("name"), Role: parseRole(r.PostFormValue("role")),
	})
	if err != nil {
		c.refused(w, r, v, err, func(code int, msg string) { c.showMembers(w, r, v, code, msg, nil) })
		return
	}
	inv := &invitation{Member: resp.GetMember(), Link: c.linkURL(resp.GetSecret()), Emailed: resp.GetEmailed(), EmailError: resp.GetEmailError()}
	c.showMembers(w, r, v, http.StatusOK, "", inv)
}

// linkURL is the address of a one-time sign-in link (GET /signin/link).
func (c *Console) linkURL(secret string) string {
	return strings.TrimRight(c.cfg.PublicURL, "/") + "/signin/link?k=" + url.QueryEscape(secret)
}

// addAssistant adds an assistant the person sponsors.
func (c *Console) addAssistant(w http.ResponseWriter, r *http.Request, v *visit) {
	_, err := c.admin.AddMember(v.ctx(r), &adminv1.AddMemberRequest{
		Handle: strings.TrimSpace(r.PostFormValue("handle")), DisplayName: r.PostFormValue("name"),
		Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Role: parseRole(r.PostFormValue("role")), Sponsor: v.member.GetHandle(),
	})
	c.afterMemberChange(w, r, v, err)
}

// setRole changes a member's role.
func (c *Console) setRole(w http.ResponseWriter, r *http.Request, v *visit) {
	role := parseRole(r.PostFormValue("role"))
	if role == taskwirev1.MemberRole_MEMBER_ROLE_UNSPECIFIED {
		c.showMembers(w, r, v, http.StatusBadRequest, "Pick a role: owner, admin, member or viewer.", nil)
		return
	}
	_, err := c.admin.SetMemberRole(v.ctx(r), &adminv1.SetMemberRoleRequest{Handle: r.PathValue("handle"), Role: role})
	c.afterMemberChange(w, r, v, err)
}

// removeMember removes a member, once the form's confirmation box is
// ticked: the browser asks for it, and the server too.
func (c *Console) removeMember(w http.ResponseWriter, r *http.Request, v *visit) {
	handle := r.PathValue("handle")
	if r.PostFormValue("confirm") != "yes" {
		c.showMembers(w, r, v, http.StatusBadRequest, "Tick “Yes, remove "+handle+"” to confirm, then press Remove again.", nil)
		return
	}
	_, err := c.admin.RemoveMember(v.ctx(r), &adminv1.RemoveMemberRequest{Handle: handle})
	c.afterMemberChange(w, r, v, err)
}

// afterMemberChange shows the Members page again: after a GET redirect
// when the change was made, else with the service's sentence.
func (c *Console) afterMemberChange(w http.ResponseWriter, r *http.Request, v *visit, err error) {
	if err != nil {
		c.refused(w, r, v, err, func(code int, msg string) { c.showMembers(w, r, v, code, msg, nil) })
		return
	}
	http.Redirect(w, r, tenantPath(v.tenant())+"members", http.StatusSeeOther)
}

// refused shows a refusal a person can act on (a bad value, a rule, a
// role) on the page they were on, in the service's words; anything else
// is rpcFailed's.
func (c *Console) refused(w http.ResponseWriter, r *http.Request, v *visit, err error, show func(code int, msg string)) {
	st := status.Convert(err)
	code := http.StatusConflict
	switch st.Code() {
	case codes.InvalidArgument, codes.OutOfRange:
		code = http.StatusBadRequest
	case codes.PermissionDenied:
		code = http.StatusForbidden
	case codes.NotFound:
		code = http.StatusNotFound
	case codes.ResourceExhausted:
		code = http.StatusTooManyRequests
	case codes.FailedPrecondition, codes.AlreadyExists, codes.Aborted:
	default:
		c.rpcFailed(w, r, v, err)
		return
	}
	show(code, st.Message())
}

// parseRole reads a form's role; "" or an unknown word is unspecified
// (the service's default).
func parseRole(s string) taskwirev1.MemberRole {
	return taskwirev1.MemberRole(taskwirev1.MemberRole_value["MEMBER_ROLE_"+strings.ToUpper(s)])
}
