package frontdoor

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// MCP Apps (the extension io.modelcontextprotocol/ui, SEP-1865): a tool
// names in _meta.ui.resourceUri a ui:// resource, an HTML view the host
// shows in a sandboxed iframe beside the tool's result; the view calls
// tools back through the host. The extension is declared in
// server/discover whenever Config.Apps is set, and honoured only for a
// request whose client declares it (with the view's MIME type): only
// then do tools/list carry _meta.ui and resources/list the views. Every
// tool still answers with text and structuredContent, which is all a
// host without Apps shows. Only a declaring client reads a view, though
// a view is the same static page for everyone and holds no data.
const (
	// ExtensionApps is the extension's identifier, in the extensions of
	// both sides' capabilities.
	ExtensionApps = "io.modelcontextprotocol/ui"
	// AppMIME is the MIME type of a view.
	AppMIME = "text/html;profile=mcp-app"
	// appScheme starts the URI of every view.
	appScheme = "ui://"
)

// AppBackend serves the views of MCP Apps.
type AppBackend interface {
	// Views returns the view resources, for resources/list, each with
	// its _meta.ui (CSP and border).
	Views() []mcp.Resource
	// ReadView returns the contents of the view uri names, with its
	// _meta.ui; false when uri names no view.
	ReadView(uri string) (mcp.ResourceContents, bool)
	// ViewOf returns the URI of the view that shows the results of the
	// tool named, "" when none does.
	ViewOf(tool string) string
}

// appsCapability is the server's declaration of the extension.
type appsCapability struct {
	MIMETypes []string `json:"mimeTypes"`
}

// appsDeclared says whether this request's client declared the
// extension: in the request's _meta, or, for a legacy session, at its
// initialize. A declaration must list the view's MIME type, as the
// extension asks, so a client of a later profile only is not sent views
// it cannot show.
func (x *exchange) appsDeclared() bool {
	if x.h.cfg.Apps == nil {
		return false
	}
	caps := x.req.meta[mcp.MetaClientCapabilities]
	if x.legacy {
		caps = x.ses.Capabilities
	}
	settings, ok := mcp.Extension(caps, ExtensionApps)
	var ui appsCapability
	if !ok || json.Unmarshal(settings, &ui) != nil {
		return false
	}
	return slices.Contains(ui.MIMETypes, AppMIME)
}

// withViews returns tools with _meta.ui.resourceUri set on those a view
// shows, when the client declared the extension; tools itself otherwise.
// The definitions the backend returned stay untouched.
func (x *exchange) withViews(tools []mcp.Tool) []mcp.Tool {
	if !x.appsDeclared() {
		return tools
	}
	for i, t := range tools {
		uri := x.h.cfg.Apps.ViewOf(t.Name)
		if uri == "" {
			continue
		}
		meta, err := json.Marshal(map[string]any{"ui": map[string]string{"resourceUri": uri}})
		if err != nil {
			continue
		}
		tools[i].Meta = meta
	}
	return tools
}

// readView returns the view uri names, if it is a ui:// URI and the
// client declared the extension; handled is false for any other URI,
// which the resource backend reads (and knows no ui:// URI: a client
// that did not declare the extension is told there is no such resource).
func (x *exchange) readView(uri string) (contents []mcp.ResourceContents, handled bool, err error) {
	if !strings.HasPrefix(uri, appScheme) || !x.appsDeclared() {
		return nil, false, nil
	}
	c, ok := x.h.cfg.Apps.ReadView(uri)
	if !ok {
		return nil, true, &mcp.ResourceNotFoundError{URI: uri}
	}
	return []mcp.ResourceContents{c}, true, nil
}
