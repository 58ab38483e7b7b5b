package console

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"
)

//go:embed templates/*.html
var templateFS embed.FS

// page is what every template is given: the layout's header needs the
// visit; Data is the page's own.
type page struct {
	Title   string
	Visit   *visit
	Message string // an error or a notice, shown above the content
	CSRF    string // for forms before sign-in (with a visit, Visit.csrf)
	Data    any
}

// pages are the parsed templates, one set per page: the layout with the
// page's "content".
type pages struct {
	sets map[string]*template.Template
}

// parsePages parses every template once, at start.
func parsePages() (*pages, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, err
	}
	p := &pages{sets: map[string]*template.Template{}}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || name == "parts" {
			continue
		}
		set, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, err
		}
		p.sets[name] = set
	}
	return p, nil
}

// render writes the page name with code. It renders into a buffer first,
// so a template error is a clean 500 rather than half a page.
func (c *Console) render(w http.ResponseWriter, r *http.Request, code int, name string, p page) {
	c.renderTemplate(w, r, code, name, "layout.html", p)
}

func (c *Console) renderTemplate(w http.ResponseWriter, r *http.Request, code int, name, tmpl string, p page) {
	set, ok := c.pages.sets[name]
	if !ok {
		c.log.ErrorContext(r.Context(), "console: no such template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := set.ExecuteTemplate(&buf, tmpl, p); err != nil {
		c.log.ErrorContext(r.Context(), "console: template failed", "name", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// funcs are the templates' helpers. None returns template.HTML: all text
// is escaped by html/template where it lands.
var funcs = template.FuncMap{
	"asset":      assetURL,
	"tenantPath": tenantPath,
	"when":       when,
	"segments":   segments,
	"roleOf":     roleOf,
	"boardPath":  boardPath,
	"taskPath":   taskPath,
	"laneName":   laneName,
	"memberKind": memberKind,
	"linkKind":   linkKind,
}

// when is a timestamp as a person reads it, in UTC.
func when(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return ""
	}
	return ts.AsTime().UTC().Format("2 Jan 2006 15:04 UTC")
}
