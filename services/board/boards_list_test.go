package board_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestListBoardsPages(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		scoped := tenantscope.NewContext(context.Background(), e.acme.ID)
		for _, slug := range []string{"zeta", "alpha", "kilo", "beta", "ops2"} {
			c.Board.Create().SetTenantID(e.acme.ID).SetSlug(slug).SetName(slug).SaveX(scoped)
		}
		want := []string{"main", "alpha", "beta", "kilo", "ops", "ops2", "zeta"}
		for _, limit := range []int{1, 2, 3, 7, 100} {
			got := walkPages(t, limit, func(cursor string) ([]*taskwirev1.Board, string, error) {
				resp, err := e.svc.ListBoards(e.bob, &taskwirev1.ListBoardsRequest{Limit: int32(limit), Cursor: cursor})
				return resp.GetItems(), resp.GetNextCursor(), err
			}, (*taskwirev1.Board).GetSlug)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ListBoards(limit %d), all pages (-want +got):\n%s", limit, diff)
			}
		}

		first, err := e.svc.ListBoards(e.bob, &taskwirev1.ListBoardsRequest{Limit: 2})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("ListBoards(limit 2) = %v, %v, want a next_cursor", first, err)
		}
		if !first.Items[0].IsDefault || first.Items[1].IsDefault {
			t.Errorf("ListBoards() first page = %v, want the default board first and only", first.Items)
		}
		members, err := e.svc.ListMembers(e.bob, &taskwirev1.ListMembersRequest{Limit: 1})
		if err != nil || members.NextCursor == "" {
			t.Fatalf("ListMembers(limit 1) = %v, %v, want a next_cursor", members, err)
		}
		for _, tc := range []struct {
			name   string
			ctx    context.Context
			cursor string
		}{
			{"tampered", e.bob, tamperCursor(first.NextCursor)},
			{"made up", e.bob, "after:main"},
			{"another tenant's", e.gina, first.NextCursor},
			{"another list's", e.bob, members.NextCursor},
		} {
			_, err := e.svc.ListBoards(tc.ctx, &taskwirev1.ListBoardsRequest{Limit: 2, Cursor: tc.cursor})
			wantErr(t, "ListBoards("+tc.name+" cursor)", err, domainerr.Invalid, "cursor is not valid", "next_cursor")
		}
		_, err = e.svc.ListBoards(e.bob, &taskwirev1.ListBoardsRequest{Limit: 101})
		wantErr(t, "ListBoards(limit 101)", err, domainerr.Invalid, "limit 101", "1 to 100")

		globex, err := e.svc.ListBoards(e.gina, &taskwirev1.ListBoardsRequest{})
		if err != nil || len(globex.Items) != 1 || globex.Items[0].Slug != "main" || globex.NextCursor != "" {
			t.Errorf("ListBoards(gina) = %v, %v, want globex's main alone", globex, err)
		}
	})
}
