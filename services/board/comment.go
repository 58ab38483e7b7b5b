package board

import (
	"context"
	"strings"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/store"
)

func (s *Service) addComment(ctx context.Context, a actor, req *taskwirev1.AddCommentRequest) (*taskwirev1.AddCommentResponse, error) {
	body := req.GetBody()
	if strings.TrimSpace(body) == "" {
		return nil, domainerr.New(domainerr.Invalid, "body is empty: write the comment's text")
	}
	if n := utf8.RuneCountInString(body); n > MaxComment {
		return nil, domainerr.New(domainerr.Invalid, "body is %d characters long, more than %d: shorten it or split it into several comments", n, MaxComment)
	}
	if _, err := parseRef(req.GetRef()); err != nil {
		return nil, err
	}
	resp := &taskwirev1.AddCommentResponse{}
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		t, err := findTask(ctx, tx.Client(), a, req.GetRef())
		if err != nil {
			return err
		}
		c, err := tx.Comment.Create().
			SetTenantID(a.tenant.ID).SetTaskID(t.ID).SetAuthorID(a.member.ID).SetBody(body).
			Save(ctx)
		if err != nil {
			return err
		}
		if err := record(ctx, tx, a, ActionCommentAdded, t, map[string]any{"ref": Ref(t.Number), "comment_id": c.ID}); err != nil {
			return err
		}
		n := names{members: map[int]*ent.Member{a.member.ID: a.member}}
		resp.Comment = n.comment(c, t.Number)
		return nil
	})
	return resp, err
}
