package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
)

// slug is the seeded tenant's.
const slug = "bench"

// seedBatch is how many rows one seeding insert writes.
const seedBatch = 1000

// seeded is what seed wrote.
type seeded struct {
	tasks, comments, activity int
	took                      time.Duration
}

// seed writes a tenant of tasks tasks, comments comments and a history
// entry for each into the database dsn, with bulk inserts: far faster
// than the tools, and the same rows.
func seed(ctx context.Context, dsn string, tasks, comments int) (seeded, error) {
	start := time.Now()
	c, err := store.Open(ctx, dsn, store.Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return seeded{}, err
	}
	defer c.Close()
	t, err := c.Tenant.Create().SetSlug(slug).SetName("Bench").Save(ctx)
	if err != nil {
		return seeded{}, err
	}
	ctx = tenantscope.NewContext(ctx, t.ID)
	s := &seeder{c: c, tenant: t.ID}
	if err := s.people(ctx); err != nil {
		return seeded{}, err
	}
	if err := s.tasks(ctx, tasks); err != nil {
		return seeded{}, err
	}
	if err := s.comments(ctx, tasks, comments); err != nil {
		return seeded{}, err
	}
	err = c.Tenant.UpdateOneID(t.ID).SetTaskSeq(tasks).SetCommentSeq(comments).Exec(ctx)
	return seeded{tasks: tasks, comments: comments, activity: tasks + comments, took: time.Since(start)}, err
}

type seeder struct {
	c       *ent.Client
	tenant  int
	board   int
	members []*ent.Member
	taskIDs []int
}

func (s *seeder) people(ctx context.Context) error {
	var creates []*ent.MemberCreate
	for i, h := range []string{"alice", "bob", "carol", "dave", "erin"} {
		role := member.RoleMember
		if i == 0 {
			role = member.RoleOwner
		}
		creates = append(creates, s.c.Member.Create().SetTenantID(s.tenant).SetHandle(h).SetDisplayName(strings.ToUpper(h[:1])+h[1:]).
			SetKind(member.KindHuman).SetRole(role))
	}
	var err error
	if s.members, err = s.c.Member.CreateBulk(creates...).Save(ctx); err != nil {
		return err
	}
	b, err := s.c.Board.Create().SetTenantID(s.tenant).SetSlug("main").SetName("Main").SetIsDefault(true).Save(ctx)
	s.board = b.ID
	return err
}

var words = strings.Fields("archive board cache client comment database deploy export import index lane lease member migrate note queue search session tenant token worker")

var lanes = []task.Lane{task.LaneBacklog, task.LaneNext, task.LaneDoing, task.LaneDone}

// tasks writes n tasks, each with its task.created entry, seedBatch to a
// transaction.
func (s *seeder) tasks(ctx context.Context, n int) error {
	for from := 1; from <= n; from += seedBatch {
		err := store.WithTx(ctx, s.c, func(tx *ent.Tx) error {
			var creates []*ent.TaskCreate
			for i := from; i < from+seedBatch && i <= n; i++ {
				by := s.members[i%len(s.members)].ID
				title := fmt.Sprintf("%s the %s of %s %d", strings.ToUpper(words[i%len(words)][:1])+words[i%len(words)][1:], words[(i/3)%len(words)], words[(i/7)%len(words)], i)
				creates = append(creates, tx.Task.Create().SetTenantID(s.tenant).SetBoardID(s.board).SetNumber(i).SetTitle(title).
					SetNote(strings.Repeat("A line of the task's note, as people write them. ", 4)).SetLane(lanes[i%len(lanes)]).
					SetPosition(i).SetCreatedByID(by).SetAssigneeIds([]int{by}).SetLabels([]string{words[i%5]}).SetTextAuthorIds([]int{by}))
			}
			made, err := tx.Task.CreateBulk(creates...).Save(ctx)
			if err != nil {
				return err
			}
			var history []*ent.ActivityCreate
			for _, t := range made {
				s.taskIDs = append(s.taskIDs, t.ID)
				history = append(history, tx.Activity.Create().SetTenantID(s.tenant).SetActorID(t.CreatedByID).SetActorKind("human").
					SetTaskID(t.ID).SetAction("task.created").SetDetail(map[string]any{"ref": fmt.Sprintf("T-%d", t.Number), "board": "main", "title": t.Title, "lane": string(t.Lane)}))
			}
			return tx.Activity.CreateBulk(history...).Exec(ctx)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// comments writes n comments spread over the tasks, each with its
// comment.added entry.
func (s *seeder) comments(ctx context.Context, tasks, n int) error {
	for from := 1; from <= n; from += seedBatch {
		err := store.WithTx(ctx, s.c, func(tx *ent.Tx) error {
			var creates []*ent.CommentCreate
			var history []*ent.ActivityCreate
			for i := from; i < from+seedBatch && i <= n; i++ {
				number := (i-1)%tasks + 1
				by := s.members[i%len(s.members)].ID
				creates = append(creates, tx.Comment.Create().SetTenantID(s.tenant).SetNumber(i).SetTaskID(s.taskIDs[number-1]).SetAuthorID(by).
					SetBody(fmt.Sprintf("Comment %d: looked at this again, the %s needs another pass before it ships.", i, words[i%len(words)])))
				history = append(history, tx.Activity.Create().SetTenantID(s.tenant).SetActorID(by).SetActorKind("human").
					SetTaskID(s.taskIDs[number-1]).SetAction("comment.added").SetDetail(map[string]any{"ref": fmt.Sprintf("T-%d", number), "comment": i}))
			}
			if err := tx.Comment.CreateBulk(creates...).Exec(ctx); err != nil {
				return err
			}
			return tx.Activity.CreateBulk(history...).Exec(ctx)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
