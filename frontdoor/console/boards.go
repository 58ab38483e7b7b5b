package console

import (
	"crypto/rand"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// boardsData is what the boards page shows.
type boardsData struct {
	Boards []*taskwirev1.Board // archived ones too, marked
	// Draft is the new board a person asked for that could not be
	// created: shown again in the form so that nothing typed is lost.
	Draft newBoard
	Key   string // the form's idempotency key
}

type newBoard struct{ Slug, Name string }

// Manages reports whether the member may change the tenant's boards and
// read its audit log (an owner or admin). It only decides which links and
// forms a page offers: the workers refuse anyone else.
func (v *visit) Manages() bool {
	switch v.member.GetRole() {
	case taskwirev1.MemberRole_MEMBER_ROLE_OWNER, taskwirev1.MemberRole_MEMBER_ROLE_ADMIN:
		return true
	}
	return false
}

// Comments reports whether the member may comment and leave context
// notes (any role but viewer); like Manages, it only decides which forms
// a page offers.
func (v *visit) Comments() bool {
	return v.member != nil && v.member.GetRole() != taskwirev1.MemberRole_MEMBER_ROLE_VIEWER
}

// boardsPage lists the tenant's boards, archived ones too, with the form
// that creates one.
func (c *Console) boardsPage(w http.ResponseWriter, r *http.Request, v *visit) {
	c.showBoards(w, r, v, http.StatusOK, "", newBoard{})
}

func (c *Console) showBoards(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string, d newBoard) {
	data := boardsData{Draft: d, Key: formKey()}
	req := &taskwirev1.ListBoardsRequest{Limit: 100, IncludeArchived: true}
	for range 20 {
		resp, err := c.board.ListBoards(v.ctx(r), req)
		if err != nil {
			c.rpcFailed(w, r, v, err)
			return
		}
		data.Boards = append(data.Boards, resp.GetItems()...)
		if req.Cursor = resp.GetNextCursor(); req.Cursor == "" {
			break
		}
	}
	c.render(w, r, code, "boards", page{Title: "Boards", Visit: v, Message: msg, Data: data})
}

// createBoard creates a board with the boards_create tool's RPC and opens
// its settings; a refused slug or name shows the form again as typed.
func (c *Console) createBoard(w http.ResponseWriter, r *http.Request, v *visit) {
	d := newBoard{Slug: r.PostFormValue("slug"), Name: r.PostFormValue("name")}
	resp, err := c.board.CreateBoard(v.ctx(r), &taskwirev1.CreateBoardRequest{Slug: d.Slug, Name: d.Name, IdempotencyKey: r.PostFormValue("key")})
	switch status.Code(err) {
	case codes.OK:
		http.Redirect(w, r, boardPath(v.tenant(), resp.GetBoard().GetBoard().GetSlug())+"settings", http.StatusSeeOther)
	case codes.InvalidArgument, codes.AlreadyExists, codes.FailedPrecondition, codes.ResourceExhausted:
		code := http.StatusBadRequest
		if status.Code(err) != codes.InvalidArgument {
			code = http.StatusConflict
		}
		c.showBoards(w, r, v, code, status.Convert(err).Message(), d)
	default:
		c.rpcFailed(w, r, v, err)
	}
}

// formKey is a fresh idempotency key for a form that creates something:
// a form sent twice (a double click, a resend after a lost answer)
// creates it once, and the second answer is the first's.
func formKey() string { return rand.Text() }
