package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// seedTask is a task to write straight into the database, for reads to
// find; the zero value is an untouched backlog task on acme's main board,
// created by alice.
type seedTask struct {
	tenant    string // default "acme"
	board     string // default "main"
	title     string
	note      string
	lane      task.Lane
	kind      task.Kind
	position  int
	assignees []string // handles
	labels    []string
	project   string
	flagged   bool
	by        string   // creator, default alice (gina in globex)
	authors   []string // text_author_ids; none means the creator
	updated   time.Time
	deleted   bool
}

// seeder writes seedTasks with the ent client, numbering them per tenant as
// the write tools do.
type seeder struct {
	t      *testing.T
	client *ent.Client
}

func (s seeder) ctx(slug string) (context.Context, *ent.Tenant) {
	s.t.Helper()
	tn, ctx, err := tenancy.Tenant(context.Background(), s.client, slug)
	if err != nil {
		s.t.Fatal(err)
	}
	return ctx, tn
}

// memberID returns the id of the member with handle in tenant slug.
func (s seeder) memberID(slug, handle string) int {
	s.t.Helper()
	ctx, tn := s.ctx(slug)
	m, err := tenancy.MemberByHandle(ctx, s.client, tn, handle)
	if err != nil {
		s.t.Fatalf("member %s/%s: %v", slug, handle, err)
	}
	return m.ID
}

func (s seeder) memberIDs(slug string, handles []string) []int {
	ids := make([]int, 0, len(handles))
	for _, h := range handles {
		ids = append(ids, s.memberID(slug, h))
	}
	return ids
}

// tasks writes specs in order and returns them as stored.
func (s seeder) tasks(specs ...seedTask) []*ent.Task {
	s.t.Helper()
	out := make([]*ent.Task, len(specs))
	for i, sp := range specs {
		out[i] = s.task(sp)
	}
	return out
}

func (s seeder) task(sp seedTask) *ent.Task {
	s.t.Helper()
	slug, boardSlug, by := sp.tenant, sp.board, sp.by
	if slug == "" {
		slug = "acme"
	}
	if boardSlug == "" {
		boardSlug = "main"
	}
	if by == "" {
		by = map[string]string{"acme": "alice", "globex": "gina"}[slug]
	}
	ctx, tn := s.ctx(slug)
	b, err := s.client.Board.Query().Where(entboard.TenantID(tn.ID), entboard.Slug(boardSlug)).Only(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	n, err := s.client.Task.Query().Where(task.TenantID(tn.ID)).Count(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	c := s.client.Task.Create().
		SetTenantID(tn.ID).SetBoardID(b.ID).SetNumber(n + 1).
		SetTitle(sp.title).SetNote(sp.note).SetPosition(sp.position).
		SetAssigneeIds(s.memberIDs(slug, sp.assignees)).SetLabels(sp.labels).SetProject(sp.project).
		SetFlagged(sp.flagged).SetCreatedByID(s.memberID(slug, by)).
		SetTextAuthorIds(s.memberIDs(slug, sp.authors))
	if sp.labels == nil {
		c.SetLabels([]string{})
	}
	if sp.flagged {
		c.SetFlagReason("needs a person")
	}
	if sp.lane != "" {
		c.SetLane(sp.lane)
	}
	if sp.kind != "" {
		c.SetKind(sp.kind)
	}
	if !sp.updated.IsZero() {
		c.SetUpdatedAt(sp.updated)
	}
	if sp.deleted {
		c.SetDeletedAt(time.Now().UTC())
	}
	t, err := c.Save(ctx)
	if err != nil {
		s.t.Fatalf("seed %q: %v", sp.title, err)
	}
	return t
}
