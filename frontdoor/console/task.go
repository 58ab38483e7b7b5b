package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// taskData is what the task page shows.
type taskData struct {
	*taskwirev1.GetTaskResponse
	Card cardView
	// Entries are the task's history as sentences.
	Entries []historyEntry
	// Draft is the edit a person sent that could not be saved: shown
	// again in the form so that nothing typed is lost.
	Draft *draft
	// Work is the form approving the task for assistants (work.go).
	Work *workForm
}

// draft is what a person sent that could not be saved, shown again in
// its form so that nothing typed is lost: the task's title and note, or
// a comment (then the title and note are the task's own).
type draft struct {
	Title, Note string
	Comment     *commentDraft
}

// commentDraft is a comment's text as sent: a new comment (ID 0) or an
// edit of comment ID.
type commentDraft struct {
	ID   int32
	Body string
}

// CommentText is the text comment id's edit form shows: the person's
// draft after a failed edit, else the comment as it is.
func (d taskData) CommentText(cm *taskwirev1.Comment) string {
	if cd := d.Draft.Comment; cd != nil && cd.ID == cm.GetId() {
		return cd.Body
	}
	return cm.GetBody()
}

// Editing reports whether comment id's edit failed, so its form opens.
func (d taskData) Editing(id int32) bool {
	return d.Draft.Comment != nil && d.Draft.Comment.ID == id
}

// NewComment is the new comment's text after it failed, else "".
func (d taskData) NewComment() string { return d.CommentText(&taskwirev1.Comment{}) }

// Mine reports whether the person wrote cm, and so may edit it.
func (v *visit) Mine(cm *taskwirev1.Comment) bool {
	return v.member != nil && cm.GetAuthor() == v.member.GetHandle()
}

// taskPage shows one task: its note, links, comments and history.
func (c *Console) taskPage(w http.ResponseWriter, r *http.Request, v *visit) {
	c.showTask(w, r, v, http.StatusOK, "", nil)
}

func (c *Console) showTask(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string, d *draft) {
	c.showTaskWith(w, r, v, code, msg, d, newWorkForm())
}

// showTaskWith is showTask with the approval form wf.
func (c *Console) showTaskWith(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string, d *draft, wf *workForm) {
	ctx := v.ctx(r)
	resp, err := c.board.GetTask(ctx, &taskwirev1.GetTaskRequest{
		Ref: r.PathValue("ref"), IncludeComments: true, IncludeHistory: true, IncludeLinks: true,
	})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	members, err := c.members(ctx)
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	data := taskData{GetTaskResponse: resp, Card: cardOf(resp.GetTask(), kindsOf(members)), Draft: d, Work: wf,
		Entries: historyOf(resp.GetTask().GetRef(), resp.GetHistory(), members)}
	if d == nil || d.Comment != nil {
		data.Draft = &draft{Title: resp.GetTask().GetTitle(), Note: resp.GetTask().GetNote()}
		if d != nil {
			data.Draft.Comment = d.Comment
		}
	}
	c.render(w, r, code, "task", page{Title: resp.GetTask().GetRef() + " " + resp.GetTask().GetTitle(), Visit: v, Message: msg, Data: data})
}

// editTask saves the title and note, if the task is still at the version
// the form was filled from; if not, the page shows the task as it is now
// with the person's text kept in the form.
func (c *Console) editTask(w http.ResponseWriter, r *http.Request, v *visit) {
	d := &draft{Title: r.PostFormValue("title"), Note: r.PostFormValue("note")}
	version, _ := strconv.Atoi(r.PostFormValue("version"))
	_, err := c.board.UpdateTask(v.ctx(r), &taskwirev1.UpdateTaskRequest{
		Ref: r.PathValue("ref"), Title: &d.Title, Note: &d.Note, ExpectedVersion: int32(version),
	})
	switch status.Code(err) {
	case codes.OK:
		http.Redirect(w, r, taskPath(v.tenant(), r.PathValue("ref")), http.StatusSeeOther)
	case codes.FailedPrecondition, codes.Aborted:
		c.showTask(w, r, v, http.StatusConflict, "Someone changed this task since you opened it, so your edit was not saved. "+
			"The task as it is now is shown; your text is still in the form: check it against theirs and save again.", d)
	case codes.InvalidArgument:
		c.showTask(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), d)
	default:
		c.rpcFailed(w, r, v, err)
	}
}

// moveTask moves a card (the drag and drop, or the card's Move form),
// then returns to the board page it was moved from. htmx follows the
// redirect and swaps in the board.
func (c *Console) moveTask(w http.ResponseWriter, r *http.Request, v *visit) {
	req := &taskwirev1.MoveTaskRequest{Ref: r.PathValue("ref"), Lane: parseLane(r.PostFormValue("lane"))}
	if n, err := strconv.Atoi(r.PostFormValue("version")); err == nil {
		req.ExpectedVersion = int32(n)
	}
	if n, err := strconv.Atoi(r.PostFormValue("position")); err == nil && n >= 0 {
		req.Position = ptr(int32(n))
	}
	if _, err := c.board.MoveTask(v.ctx(r), req); err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	back := safeNext(r.PostFormValue("back"))
	if back == "" {
		back = tenantPath(v.tenant())
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// addComment posts a comment on the task.
func (c *Console) addComment(w http.ResponseWriter, r *http.Request, v *visit) {
	ref := r.PathValue("ref")
	body := r.PostFormValue("body")
	_, err := c.board.AddComment(v.ctx(r), &taskwirev1.AddCommentRequest{Ref: ref, Body: body})
	if status.Code(err) == codes.InvalidArgument {
		c.showTask(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), &draft{Comment: &commentDraft{Body: body}})
		return
	}
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	http.Redirect(w, r, taskPath(v.tenant(), ref)+"#comments", http.StatusSeeOther)
}

// editComment saves the person's edit of their comment, if it is still
// at the version the form was filled from; if not, or if it is refused,
// the page shows the comment as it is now with the person's text kept in
// its form.
func (c *Console) editComment(w http.ResponseWriter, r *http.Request, v *visit) {
	ref := r.PathValue("ref")
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 32)
	if err != nil || id < 1 {
		c.notFound(w, r)
		return
	}
	d := &draft{Comment: &commentDraft{ID: int32(id), Body: r.PostFormValue("body")}}
	version, _ := strconv.Atoi(r.PostFormValue("version"))
	_, err = c.board.EditComment(v.ctx(r), &taskwirev1.EditCommentRequest{Id: int32(id), Body: d.Comment.Body, ExpectedVersion: int32(version)})
	switch status.Code(err) {
	case codes.OK:
		http.Redirect(w, r, fmt.Sprintf("%s#comment-%d", taskPath(v.tenant(), ref), id), http.StatusSeeOther)
	case codes.FailedPrecondition, codes.Aborted:
		c.showTask(w, r, v, http.StatusConflict, "This comment was edited since you opened the page, so your edit was not saved. "+
			"The comment as it is now is shown; your text is still in its form: check it and save again.", d)
	case codes.InvalidArgument:
		c.showTask(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), d)
	case codes.PermissionDenied: // the service says why: only its author edits a comment
		c.showTask(w, r, v, http.StatusForbidden, status.Convert(err).Message(), d)
	default:
		c.rpcFailed(w, r, v, err)
	}
}

// taskPath is the path of a task's page.
func taskPath(tenant, ref string) string {
	return fmt.Sprintf("/t/%s/tasks/%s", url.PathEscape(tenant), url.PathEscape(ref))
}
