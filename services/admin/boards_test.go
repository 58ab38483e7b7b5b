package admin_test

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// boardSlugs lists the boards of tenant as ctx's caller sees them.
func boardSlugs(t *testing.T, e *env, who, tenant string, archived bool) []string {
	t.Helper()
	resp, err := e.svc.ListBoards(e.as(t, who), &adminv1.ListBoardsRequest{Tenant: tenant, IncludeArchived: archived})
	if err != nil {
		t.Fatalf("ListBoards(%s as %s) = %v", tenant, who, err)
	}
	var out []string
	for _, b := range resp.GetBoards() {
		s := b.GetSlug()
		if b.GetArchiveTime() != nil {
			s += " (archived)"
		}
		out = append(out, s)
	}
	return out
}

// TestBoards: owners, admins and operators create, list, archive and
// unarchive boards, with the rules of the board service; listen streams
// hear of each change; members and other tenants' admins may not.
func TestBoards(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		adam := e.as(t, "acme/adam")
		resp, err := e.svc.CreateBoard(adam, &adminv1.CreateBoardRequest{
			Board: "ops", Name: "Operations", WipLimits: []*taskwirev1.WipLimit{{Lane: taskwirev1.Lane_LANE_DOING, Limit: 2}},
		})
		if err != nil {
			t.Fatalf("CreateBoard(ops) by an admin = %v", err)
		}
		if b := resp.GetBoard(); b.GetSlug() != "ops" || b.GetName() != "Operations" || b.GetIsDefault() || b.GetCreateTime() == nil {
			t.Errorf("CreateBoard(ops) = %v, want ops named Operations, not default", b)
		}
		if _, err := e.svc.CreateBoard(e.as(t, "operator"), &adminv1.CreateBoardRequest{Tenant: "acme", Board: "web", Name: "Web"}); err != nil {
			t.Errorf("CreateBoard(acme/web) by an operator = %v", err)
		}
		_, err = e.svc.CreateBoard(adam, &adminv1.CreateBoardRequest{Board: "ops", Name: "Again"})
		if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(domainerr.Message(err), `has a board "ops" already`) {
			t.Errorf("CreateBoard(ops) again = %v, want a conflict naming ops", err)
		}
		if _, err := e.svc.CreateBoard(adam, &adminv1.CreateBoardRequest{Board: "Bad Slug", Name: "Bad"}); domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("CreateBoard(Bad Slug) = %v, want invalid", err)
		}
		if _, err := e.svc.CreateBoard(e.as(t, "acme/mia"), &adminv1.CreateBoardRequest{Board: "mine", Name: "Mine"}); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("CreateBoard by a member = %v, want permission denied", err)
		}
		if _, err := e.svc.CreateBoard(e.as(t, "globex/gus"), &adminv1.CreateBoardRequest{Tenant: "acme", Board: "spy", Name: "Spy"}); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("CreateBoard in acme by globex's admin = %v, want not found", err)
		}
		if got := boardSlugs(t, e, "acme/alice", "", false); !slices.Equal(got, []string{"main", "ops", "web"}) {
			t.Errorf("ListBoards = %v, want main, ops, web", got)
		}

		arch, err := e.svc.ArchiveBoard(adam, &adminv1.ArchiveBoardRequest{Board: "ops"})
		if err != nil || arch.GetBoard().GetArchiveTime() == nil {
			t.Fatalf("ArchiveBoard(ops) = %v, %v, want it archived", arch, err)
		}
		if got := boardSlugs(t, e, "acme/alice", "", false); !slices.Equal(got, []string{"main", "web"}) {
			t.Errorf("ListBoards after archiving ops = %v, want main, web", got)
		}
		if got := boardSlugs(t, e, "operator", "acme", true); !slices.Equal(got, []string{"main", "ops (archived)", "web"}) {
			t.Errorf("ListBoards(include_archived) = %v, want ops archived among them", got)
		}
		_, err = e.svc.ArchiveBoard(adam, &adminv1.ArchiveBoardRequest{Board: "main"})
		if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(domainerr.Message(err), "cannot be archived") {
			t.Errorf("ArchiveBoard(main) = %v, want a refusal: the default board", err)
		}
		back, err := e.svc.ArchiveBoard(adam, &adminv1.ArchiveBoardRequest{Board: "ops", Archived: proto.Bool(false)})
		if err != nil || back.GetBoard().GetArchiveTime() != nil {
			t.Errorf("ArchiveBoard(ops, archived false) = %v, %v, want it in use again", back, err)
		}
		if _, err := e.svc.ArchiveBoard(e.as(t, "acme/mia"), &adminv1.ArchiveBoardRequest{Board: "ops"}); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("ArchiveBoard by a member = %v, want permission denied", err)
		}
		want := []string{"acme resources 0", "acme resources 0", "acme resources 0", "acme resources 0"}
		if got := e.events.take(); !slices.Equal(got, want) {
			t.Errorf("published %q, want %q: two creations, an archiving and an unarchiving", got, want)
		}
	})
}

// TestListBoardsPages: ListBoards pages by id, each board once, and the
// last page has no next_page_token.
func TestListBoardsPages(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		adam := e.as(t, "acme/adam")
		for _, slug := range []string{"ops", "web"} {
			if _, err := e.svc.CreateBoard(adam, &adminv1.CreateBoardRequest{Board: slug, Name: slug}); err != nil {
				t.Fatalf("CreateBoard(%s) = %v", slug, err)
			}
		}
		var got []string
		token := ""
		for page := 0; page < 3; page++ {
			resp, err := e.svc.ListBoards(adam, &adminv1.ListBoardsRequest{PageSize: 2, PageToken: token})
			if err != nil {
				t.Fatalf("ListBoards(page %d) = %v", page, err)
			}
			for _, b := range resp.GetBoards() {
				got = append(got, b.GetSlug())
			}
			if token = resp.GetNextPageToken(); token == "" {
				break
			}
		}
		if !slices.Equal(got, []string{"main", "ops", "web"}) || token != "" {
			t.Errorf("ListBoards in pages of 2 = %v (next token %q), want main, ops, web and no token", got, token)
		}
	})
}
