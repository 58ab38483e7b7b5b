package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// The views of MCP Apps (frontdoor.AppBackend): the console's board, task
// card and decision card as ui:// resources a host shows inside the chat. A view is
// one self-contained page built from the console's own parts: its
// templates (templates/parts.html), its stylesheet and its scripts
// (assets/), inlined, since it runs in a sandbox with no origin to load
// them from. It holds no data and reads everything through the tools,
// as the person the host signed in.

//go:embed views
var viewFS embed.FS

// The views' URIs.
const (
	// BoardViewURI shows a board (boards_get's results).
	BoardViewURI = "ui://taskwire/board"
	// TaskViewURI shows a task card (tasks_get's results).
	TaskViewURI = "ui://taskwire/task"
	// DecisionViewURI shows a decision card (the results of the calls
	// a person must allow: tasks_delete, tasks_restore, work_approve).
	DecisionViewURI = "ui://taskwire/decision"
)

// viewMeta is the _meta of every view: no network at all (connect and
// resource domains empty, so the host's CSP allows no origin beyond the
// page itself, whose script and style are inline) and a border, since
// the view is a panel of its own.
var viewMeta = json.RawMessage(`{"ui":{"csp":{"connectDomains":[],"resourceDomains":[]},"prefersBorder":true}}`)

// view is one view: its resource and its page.
type view struct {
	resource mcp.Resource
	html     string
	tools    []string // the tools whose results it shows
}

// Apps serves the views. Its zero value is not usable: call NewApps.
type Apps struct {
	views []view
}

var _ frontdoor.AppBackend = (*Apps)(nil)

// NewApps renders the views once.
func NewApps() (*Apps, error) {
	specs := []struct {
		uri, name, title, description, page string
		scripts                             []string
		tools                               []string
	}{{
		BoardViewURI, "board-view", "Board",
		"A board's lanes and cards, with filters; the person can move cards by dragging them or with each card's Move button.",
		"board", []string{"assets/drag.js", "views/view.js", "views/bridge.js", "views/board.js"}, []string{"boards_get"},
	}, {
		TaskViewURI, "task-view", "Task",
		"A task card with its history and comments; the person can move the task and comment on it.",
		"task", []string{"views/view.js", "views/bridge.js", "views/task.js"}, []string{"tasks_get"},
	}, {
		DecisionViewURI, "decision-view", "Decision",
		"A call only a person may allow (a delete, a restore, work for assistants): the question, the task, the plan, how it ended, and the way back.",
		"decision", []string{"views/view.js", "views/bridge.js", "views/decision.js"}, []string{"tasks_delete", "tasks_restore", "work_approve"},
	}}
	a := &Apps{}
	for _, s := range specs {
		html, err := renderView(s.page, s.title, s.scripts...)
		if err != nil {
			return nil, err
		}
		a.views = append(a.views, view{
			resource: mcp.Resource{URI: s.uri, Name: s.name, Title: s.title, Description: s.description, MIMEType: frontdoor.AppMIME, Meta: viewMeta},
			html:     html,
			tools:    s.tools,
		})
	}
	return a, nil
}

// viewData is what a view's template is given: the console's stylesheet,
// the view's scripts, and the console's parts to render empty, as the
// templates the scripts fill in.
type viewData struct {
	Title  string
	CSS    template.CSS
	Script template.JS
	Lanes  []laneView
	Card   cardView
	Work   *workForm
}

// renderView renders the view page (views/<page>.html) titled title,
// with the console's parts, console.css and the scripts (paths in the
// embedded files) inlined.
func renderView(page, title string, scripts ...string) (string, error) {
	t, err := template.New(page).Funcs(funcs).ParseFS(templateFS, "templates/parts.html")
	if err == nil {
		t, err = t.ParseFS(viewFS, "views/head.html", "views/"+page+".html")
	}
	if err != nil {
		return "", err
	}
	css, err := assetFS.ReadFile("assets/console.css")
	if err != nil {
		return "", err
	}
	var js bytes.Buffer
	for _, s := range scripts {
		fsys := viewFS
		if strings.HasPrefix(s, "assets/") {
			fsys = assetFS
		}
		b, err := fsys.ReadFile(s)
		if err != nil {
			return "", err
		}
		js.Write(b)
		js.WriteByte('\n')
	}
	d := viewData{Title: title, CSS: template.CSS(css), Script: template.JS(js.String()), Work: newWorkForm()}
	move := &moveForm{}
	for _, l := range allLanes {
		move.Lanes = append(move.Lanes, laneOption{laneName(l), laneTitle(l)})
		d.Lanes = append(d.Lanes, laneView{Name: laneName(l), Title: laneTitle(l)})
	}
	d.Card = cardView{Task: &taskwirev1.Task{}, Move: move}
	var out bytes.Buffer
	err = t.ExecuteTemplate(&out, page, d)
	return out.String(), err
}

// Views returns the view resources.
func (a *Apps) Views() []mcp.Resource {
	out := make([]mcp.Resource, 0, len(a.views))
	for _, v := range a.views {
		out = append(out, v.resource)
	}
	return out
}

// ReadView returns the page of the view uri names.
func (a *Apps) ReadView(uri string) (mcp.ResourceContents, bool) {
	for _, v := range a.views {
		if v.resource.URI == uri {
			return mcp.ResourceContents{URI: uri, MIMEType: frontdoor.AppMIME, Text: v.html, Meta: viewMeta}, true
		}
	}
	return mcp.ResourceContents{}, false
}

// ViewOf returns the view that shows tool's results, "" for none.
func (a *Apps) ViewOf(tool string) string {
	for _, v := range a.views {
		for _, t := range v.tools {
			if t == tool {
				return v.resource.URI
			}
		}
	}
	return ""
}
