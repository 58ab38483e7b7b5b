package board

import (
	"context"
	"strings"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/safetext"
)

func (s *Service) addComment(ctx context.Context, a actor, req *taskwirev1.AddCommentRequest) (*taskwirev1.AddCommentResponse, error) {
	body, err := checkCommentBody(req.GetBody())
	if err != nil {
		return nil, err
	}
	if _, err := parseRef(req.GetRef()); err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, s.client, idempotency.Caller{TenantID: a.tenant.ID, MemberID: a.member.ID},
		taskwirev1.BoardService_AddComment_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.AddCommentResponse, error) {
			t, err := findTask(ctx, tx.Client(), a, req.GetRef())
			if err != nil {
				return nil, err
			}
			c, err := tx.Comment.Create().
				SetTenantID(a.tenant.ID).SetTaskID(t.ID).SetAuthorID(a.member.ID).SetBody(body).
				Save(ctx)
			if err != nil {
				return nil, err
			}
			if err := record(ctx, tx, a, ActionCommentAdded, t, map[string]any{"ref": Ref(t.Number), "comment": c.Number}); err != nil {
				return nil, err
			}
			n := names{members: map[int]*ent.Member{a.member.ID: a.member}, me: a.member.ID}
			return &taskwirev1.AddCommentResponse{Comment: n.comment(c, t.Number)}, nil
		})
}

// checkCommentBody returns body without hidden characters and in NFC
// (block), or why it cannot be a comment.
func checkCommentBody(body string) (string, error) {
	body = safetext.Block(body)
	if strings.TrimSpace(body) == "" {
		return "", domainerr.New(domainerr.Invalid, "body is empty: write the comment's text")
	}
	if n := utf8.RuneCountInString(body); n > MaxComment {
		return "", domainerr.New(domainerr.Invalid, "body is %d characters long, more than %d: shorten it or split it into several comments", n, MaxComment)
	}
	return body, nil
}
