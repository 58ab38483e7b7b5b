package console

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// settingsData is what a board's settings page shows.
type settingsData struct {
	Board   *taskwirev1.GetBoardResponse
	Context *taskwirev1.GetContextResponse // the rules and the newest notes
	Kinds   []string
	// Form is what the settings form holds: the board's settings, or
	// what a person typed that could not be saved, so nothing is lost.
	Form settingsForm
	// Note is a context note that could not be added, kept likewise.
	Note    string
	NoteKey string // the note form's idempotency key
}

// settingsForm is the settings form's fields.
type settingsForm struct {
	Name, Rules string
	WIP         []wipField
	Kinds       []kindField
	// Version is the board's version the form was filled from, sent as
	// expected_version: the service refuses a save once someone else has
	// changed the board.
	Version string
}

// wipField is one lane's WIP limit in the form, as typed.
type wipField struct{ Lane, Title, Limit string }

// kindField is one kind's checkbox in the form.
type kindField struct {
	Name    string
	Checked bool
}

// settingsPage shows a board's name, rules, WIP limits, kinds and
// context notes, with the forms that change them.
func (c *Console) settingsPage(w http.ResponseWriter, r *http.Request, v *visit) {
	c.showSettings(w, r, v, http.StatusOK, "", nil, "")
}

// showSettings renders the settings page with code and msg; form, when
// set, replaces the board's own settings in the form (keeping its
// version), and note refills the note form.
func (c *Console) showSettings(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string, form *settingsForm, note string) {
	b, cx, err := c.boardSettings(v.ctx(r), r.PathValue("board"))
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	d := settingsData{Board: b, Context: cx, Kinds: kindNames(b.GetBoard().GetKinds()), Form: formOf(b, cx.GetRules()), Note: note, NoteKey: formKey()}
	if form != nil {
		form.Version = d.Form.Version
		d.Form = *form
	}
	c.render(w, r, code, "board_settings", page{Title: "Settings of " + b.GetBoard().GetName(), Visit: v, Message: msg, Data: d})
}

// boardSettings reads a board and its rules and newest context notes.
func (c *Console) boardSettings(ctx context.Context, board string) (*taskwirev1.GetBoardResponse, *taskwirev1.GetContextResponse, error) {
	b, err := c.board.GetBoard(ctx, &taskwirev1.GetBoardRequest{Board: board})
	if err != nil {
		return nil, nil, err
	}
	cx, err := c.board.GetContext(ctx, &taskwirev1.GetContextRequest{Board: board, Limit: 100})
	return b, cx, err
}

// formOf is the settings form of a board as it is.
func formOf(b *taskwirev1.GetBoardResponse, rules string) settingsForm {
	f := settingsForm{Name: b.GetBoard().GetName(), Rules: rules, Version: strconv.Itoa(int(b.GetBoard().GetVersion()))}
	for _, l := range b.GetLanes() {
		limit := ""
		if l.GetWipLimit() > 0 {
			limit = strconv.Itoa(int(l.GetWipLimit()))
		}
		f.WIP = append(f.WIP, wipField{Lane: laneName(l.GetLane()), Title: laneTitle(l.GetLane()), Limit: limit})
	}
	f.Kinds = kindFields(kindNames(b.GetBoard().GetKinds()))
	return f
}

// kindFields are the kind checkboxes, those in checked ticked.
func kindFields(checked []string) []kindField {
	out := make([]kindField, len(allKinds))
	for i, k := range allKinds {
		out[i] = kindField{Name: k, Checked: slices.Contains(checked, k)}
	}
	return out
}

// readSettingsForm is the settings form a person sent.
func readSettingsForm(r *http.Request) settingsForm {
	f := settingsForm{Name: r.PostFormValue("name"), Rules: r.PostFormValue("rules"), Version: r.PostFormValue("expected_version")}
	for _, l := range allLanes {
		n := laneName(l)
		f.WIP = append(f.WIP, wipField{Lane: n, Title: laneTitle(l), Limit: strings.TrimSpace(r.PostFormValue("wip_" + n))})
	}
	f.Kinds = kindFields(r.PostForm["kinds"])
	return f
}

// request is the UpdateBoardRequest of f, or a sentence saying what to
// fix first.
func (f settingsForm) request(board string) (*taskwirev1.UpdateBoardRequest, string) {
	version, err := strconv.Atoi(f.Version)
	if err != nil || version < 1 {
		return nil, "The form does not say which version of the board it was filled from: reload the page and save again."
	}
	req := &taskwirev1.UpdateBoardRequest{Board: board, Name: &f.Name, Rules: &f.Rules, ExpectedVersion: int32(version)}
	for _, l := range f.WIP {
		n := 0
		if l.Limit != "" {
			if n, err = strconv.Atoi(l.Limit); err != nil {
				return nil, "The WIP limit of " + l.Title + " is not a whole number: write one, or leave it empty for no limit."
			}
		}
		req.WipLimits = append(req.WipLimits, &taskwirev1.WipLimit{Lane: parseLane(l.Lane), Limit: int32(n)})
	}
	for _, k := range f.Kinds {
		if k.Checked {
			req.Kinds = append(req.Kinds, parseKind(k.Name))
		}
	}
	if len(req.Kinds) == 0 {
		return nil, "No kind of task is ticked: tick at least one kind the board takes."
	}
	return req, ""
}

// saveSettings saves the name, rules, WIP limits and kinds if the board
// is still at the version the form was filled from; if not, the page
// shows the board as it is now with the person's text kept in the form.
func (c *Console) saveSettings(w http.ResponseWriter, r *http.Request, v *visit) {
	board := r.PathValue("board")
	f := readSettingsForm(r)
	req, bad := f.request(board)
	if bad != "" {
		c.showSettings(w, r, v, http.StatusBadRequest, bad, &f, "")
		return
	}
	_, err := c.board.UpdateBoard(v.ctx(r), req)
	switch status.Code(err) {
	case codes.OK:
		http.Redirect(w, r, boardPath(v.tenant(), board)+"settings", http.StatusSeeOther)
	case codes.InvalidArgument:
		c.showSettings(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), &f, "")
	case codes.FailedPrecondition, codes.Aborted:
		c.showSettings(w, r, v, http.StatusConflict, "Someone changed this board's settings since you opened them, so your changes were not saved. "+
			"The settings as they are now are listed; your text is still in the form: check it against theirs and save again.", &f, "")
	default:
		c.rpcFailed(w, r, v, err)
	}
}

// addNote leaves a context note on the board, as the context_add tool.
func (c *Console) addNote(w http.ResponseWriter, r *http.Request, v *visit) {
	board, body := r.PathValue("board"), r.PostFormValue("body")
	_, err := c.board.AddContextNote(v.ctx(r), &taskwirev1.AddContextNoteRequest{Board: board, Body: body, IdempotencyKey: r.PostFormValue("key")})
	switch status.Code(err) {
	case codes.OK:
		http.Redirect(w, r, boardPath(v.tenant(), board)+"settings#notes", http.StatusSeeOther)
	case codes.InvalidArgument:
		c.showSettings(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), nil, body)
	default:
		c.rpcFailed(w, r, v, err)
	}
}

// archiveBoard archives the board, or brings it back, with the admin API
// (the worker lets a session's owner or admin administer).
func (c *Console) archiveBoard(w http.ResponseWriter, r *http.Request, v *visit) {
	board := r.PathValue("board")
	archived := r.PostFormValue("archived") != "false"
	_, err := c.admin.ArchiveBoard(v.ctx(r), &adminv1.ArchiveBoardRequest{Tenant: v.tenant(), Board: board, Archived: &archived})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	http.Redirect(w, r, boardPath(v.tenant(), board)+"settings", http.StatusSeeOther)
}

// kindNames are the names of task kinds: "bug".
func kindNames(ks []taskwirev1.TaskKind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, kindName(k))
	}
	return out
}
