package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

func TestListMembers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		addMember(t, c, "acme", tenancy.MemberSpec{Handle: "erin", Role: member.RoleAdmin})
		addMember(t, c, "acme", tenancy.MemberSpec{Handle: "dave", Role: member.RoleViewer})
		zed := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "zed"})
		c.Member.UpdateOne(zed).SetRemovedAt(time.Now()).ExecX(tenantscope.NewContext(context.Background(), e.acme.ID))

		var got []*taskwirev1.Member
		walkPages(t, 2, func(cursor string) ([]*taskwirev1.Member, string, error) {
			resp, err := e.svc.ListMembers(e.claude, &taskwirev1.ListMembersRequest{Limit: 2, Cursor: cursor})
			got = append(got, resp.GetItems()...)
			return resp.GetItems(), resp.GetNextCursor(), err
		}, (*taskwirev1.Member).GetHandle)
		human, assistant := taskwirev1.MemberKind_MEMBER_KIND_HUMAN, taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT
		want := []*taskwirev1.Member{
			{Handle: "alice", Kind: human, Role: taskwirev1.MemberRole_MEMBER_ROLE_OWNER},
			{Handle: "bob", Kind: human, Role: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER},
			{Handle: "claude", Kind: assistant, Role: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER, Sponsor: "alice"},
			{Handle: "dave", Kind: human, Role: taskwirev1.MemberRole_MEMBER_ROLE_VIEWER},
			{Handle: "erin", Kind: human, Role: taskwirev1.MemberRole_MEMBER_ROLE_ADMIN},
		}
		ignoreNames := protocmp.IgnoreFields(&taskwirev1.Member{}, "display_name")
		if diff := cmp.Diff(want, got, protocmp.Transform(), ignoreNames); diff != "" {
			t.Errorf("ListMembers(), all pages (-want +got):\n%s", diff)
		}

		first, err := e.svc.ListMembers(e.bob, &taskwirev1.ListMembersRequest{Limit: 1})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("ListMembers(limit 1) = %v, %v, want a next_cursor", first, err)
		}
		_, err = e.svc.ListMembers(e.gina, &taskwirev1.ListMembersRequest{Limit: 1, Cursor: first.NextCursor})
		wantErr(t, "ListMembers(acme's cursor in globex)", err, domainerr.Invalid, "cursor is not valid")
		_, err = e.svc.ListMembers(e.bob, &taskwirev1.ListMembersRequest{Limit: 1, Cursor: tamperCursor(first.NextCursor)})
		wantErr(t, "ListMembers(tampered cursor)", err, domainerr.Invalid, "cursor is not valid")

		globex, err := e.svc.ListMembers(e.gina, &taskwirev1.ListMembersRequest{})
		if err != nil || len(globex.Items) != 1 || globex.Items[0].Handle != "gina" || globex.NextCursor != "" {
			t.Errorf("ListMembers(gina) = %v, %v, want gina alone", globex, err)
		}
	})
}
