package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// The views of MCP Apps (frontdoor.AppBackend): the console's board as a
// ui:// resource a host shows inside the chat. A view is one
// self-contained page, the console's stylesheet and the view's script
// inlined, since it runs in a sandbox with no origin to load them from;
// it holds no data and reads everything through the tools, as the
// person the host signed in.

//go:embed views
var viewFS embed.FS

// BoardViewURI is the view that shows boards_get's results.
const BoardViewURI = "ui://taskwire/board"

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
	board, err := renderView("board.html", "bridge.js", "board.js")
	if err != nil {
		return nil, err
	}
	return &Apps{views: []view{{
		resource: mcp.Resource{
			URI: BoardViewURI, Name: "board-view", Title: "Board",
			Description: "A board's lanes and cards, with filters; the person can move cards by dragging them.",
			MIMEType:    frontdoor.AppMIME, Meta: viewMeta,
		},
		html:  board,
		tools: []string{"boards_get"},
	}}}, nil
}

// renderView renders the page name with console.css and the scripts
// inlined.
func renderView(name string, scripts ...string) (string, error) {
	t, err := template.ParseFS(viewFS, "views/"+name)
	if err != nil {
		return "", err
	}
	css, err := assetFS.ReadFile("assets/console.css")
	if err != nil {
		return "", err
	}
	var js bytes.Buffer
	for _, s := range scripts {
		b, err := viewFS.ReadFile("views/" + s)
		if err != nil {
			return "", err
		}
		js.Write(b)
		js.WriteByte('\n')
	}
	var out bytes.Buffer
	err = t.Execute(&out, struct {
		CSS    template.CSS
		Script template.JS
	}{template.CSS(css), template.JS(js.String())})
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
