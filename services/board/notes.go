package board

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/contextnote"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/safetext"
)

// MaxContextNote is the longest context note, in characters.
const MaxContextNote = 5000

// ActionContextAdded is recorded when a member leaves a context note.
const ActionContextAdded = "context.added"

// GetContext returns what to know before working on a board: its standing
// rules, which are instructions, then its context notes, which are not.
func (s *Service) GetContext(ctx context.Context, req *taskwirev1.GetContextRequest) (*taskwirev1.GetContextResponse, error) {
	return call(ctx, s, req, s.getContext)
}

// AddContextNote leaves a note, signed by the caller, on a board.
func (s *Service) AddContextNote(ctx context.Context, req *taskwirev1.AddContextNoteRequest) (*taskwirev1.AddContextNoteResponse, error) {
	return call(ctx, s, req, s.addContextNote)
}

func (s *Service) getContext(ctx context.Context, a actor, req *taskwirev1.GetContextRequest) (*taskwirev1.GetContextResponse, error) {
	limit, err := cursor.Limit(req.GetLimit())
	if err != nil {
		return nil, err
	}
	b, err := findBoard(ctx, s.client, a, req.GetBoard())
	if err != nil {
		return nil, err
	}
	query := cursor.Query("board:"+strconv.Itoa(b.ID), "sort:newest")
	pos, err := s.cursors.Open(req.GetCursor(), a.tenant.ID, "context", query, 1)
	if err != nil {
		return nil, err
	}
	where := []predicate.ContextNote{contextnote.TenantID(a.tenant.ID), contextnote.BoardID(b.ID)}
	if pos != nil {
		before, err := strconv.Atoi(pos[0])
		if err != nil {
			return nil, err // sealed by us: cannot happen
		}
		where = append(where, contextnote.IDLT(before))
	}
	notes, err := s.client.ContextNote.Query().Where(where...).
		Order(ent.Desc(contextnote.FieldID)).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.GetContextResponse{
		Board: boardProto(b), Rules: b.Rules, RulesTrust: taskwirev1.Trust_TRUST_INSTRUCTION,
	}
	if len(notes) > limit {
		notes = notes[:limit]
		resp.NextCursor = s.cursors.Seal(a.tenant.ID, "context", query, strconv.Itoa(notes[limit-1].ID))
	}
	n, err := authorNames(ctx, s.client, a, notes)
	if err != nil {
		return nil, err
	}
	for _, note := range notes {
		resp.Items = append(resp.Items, n.note(note, b.Slug))
	}
	return resp, nil
}

func (s *Service) addContextNote(ctx context.Context, a actor, req *taskwirev1.AddContextNoteRequest) (*taskwirev1.AddContextNoteResponse, error) {
	body := safetext.Block(req.GetBody())
	if strings.TrimSpace(body) == "" {
		return nil, domainerr.New(domainerr.Invalid, "body is empty: write the note's text")
	}
	if n := utf8.RuneCountInString(body); n > MaxContextNote {
		return nil, domainerr.New(domainerr.Invalid, "body is %d characters long, more than %d: shorten it or split it into several notes", n, MaxContextNote)
	}
	return idempotency.Do(ctx, s.client, idempotency.Caller{TenantID: a.tenant.ID, MemberID: a.member.ID},
		taskwirev1.BoardService_AddContextNote_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.AddContextNoteResponse, error) {
			b, err := findBoard(ctx, tx.Client(), a, req.GetBoard())
			if err != nil {
				return nil, err
			}
			note, err := tx.ContextNote.Create().
				SetTenantID(a.tenant.ID).SetBoardID(b.ID).SetAuthorID(a.member.ID).SetBody(body).
				Save(ctx)
			if err != nil {
				return nil, err
			}
			if err := record(ctx, tx, a, ActionContextAdded, nil, map[string]any{"board": b.Slug, "note": note.Number}); err != nil {
				return nil, err
			}
			n := names{members: map[int]*ent.Member{a.member.ID: a.member}, me: a.member.ID}
			return &taskwirev1.AddContextNoteResponse{Note: n.note(note, b.Slug)}, nil
		})
}

// authorNames loads the authors of notes.
func authorNames(ctx context.Context, c *ent.Client, a actor, notes []*ent.ContextNote) (names, error) {
	n := names{members: map[int]*ent.Member{}, me: a.member.ID}
	ids := make([]int, 0, len(notes))
	for _, note := range notes {
		ids = append(ids, note.AuthorID)
	}
	return n, n.addMembers(ctx, c, a, ids)
}

// note converts a context note on the board with slug for the caller's
// response.
func (n names) note(note *ent.ContextNote, slug string) *taskwirev1.ContextNote {
	return &taskwirev1.ContextNote{
		Id:        int32(note.Number),
		Board:     slug,
		Body:      note.Body,
		Author:    n.handle(note.AuthorID),
		CreatedAt: timestamppb.New(note.CreatedAt),
		Trust:     textTrust(n.me, []int{note.AuthorID}),
	}
}
