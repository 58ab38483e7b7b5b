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

type draft struct{ Title, Note string }

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
	if d == nil {
		data.Draft = &draft{Title: resp.GetTask().GetTitle(), Note: resp.GetTask().GetNote()}
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
	_, err := c.board.AddComment(v.ctx(r), &taskwirev1.AddCommentRequest{Ref: ref, Body: r.PostFormValue("body")})
	if status.Code(err) == codes.InvalidArgument {
		c.showTask(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), nil)
		return
	}
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	http.Redirect(w, r, taskPath(v.tenant(), ref)+"#comments", http.StatusSeeOther)
}

// taskPath is the path of a task's page.
func taskPath(tenant, ref string) string {
	return fmt.Sprintf("/t/%s/tasks/%s", url.PathEscape(tenant), url.PathEscape(ref))
}
