package board

import (
	"context"
	"strconv"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/predicate"
)

// ListComments lists a task's comments, oldest first, a page at a time.
func (s *Service) ListComments(ctx context.Context, req *taskwirev1.ListCommentsRequest) (*taskwirev1.ListCommentsResponse, error) {
	return call(ctx, s, req, s.listComments)
}

func (s *Service) listComments(ctx context.Context, a actor, req *taskwirev1.ListCommentsRequest) (*taskwirev1.ListCommentsResponse, error) {
	limit, err := cursor.Limit(req.GetLimit())
	if err != nil {
		return nil, err
	}
	t, err := findTask(ctx, s.client, a, req.GetRef())
	if err != nil {
		return nil, err
	}
	query := cursor.Query("task:"+strconv.Itoa(t.ID), "sort:oldest")
	pos, err := s.cursors.Open(req.GetCursor(), a.tenant.ID, "comments", query, 1)
	if err != nil {
		return nil, err
	}
	where := []predicate.Comment{comment.TenantID(a.tenant.ID), comment.TaskID(t.ID)}
	if pos != nil {
		after, err := strconv.Atoi(pos[0])
		if err != nil {
			return nil, err // sealed by us: cannot happen
		}
		where = append(where, comment.IDGT(after))
	}
	cs, err := s.client.Comment.Query().Where(where...).
		Order(ent.Asc(comment.FieldID)).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListCommentsResponse{}
	if len(cs) > limit {
		cs = cs[:limit]
		resp.NextCursor = s.cursors.Seal(a.tenant.ID, "comments", query, strconv.Itoa(cs[limit-1].ID))
	}
	n, err := lookupNames(ctx, s.client, a, nil, cs)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		resp.Items = append(resp.Items, n.comment(c, t.Number))
	}
	return resp, nil
}
