package frontdoor

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
)

// fakeApps has one view, which shows the results of tasks_list.
type fakeApps struct{}

const fakeViewURI = "ui://taskwire/list"

var fakeViewMeta = json.RawMessage(`{"ui":{"csp":{"connectDomains":[],"resourceDomains":[]}}}`)

func (fakeApps) Views() []mcp.Resource {
	return []mcp.Resource{{URI: fakeViewURI, Name: "list-view", MIMEType: AppMIME, Meta: fakeViewMeta}}
}

func (fakeApps) ReadView(uri string) (mcp.ResourceContents, bool) {
	if uri != fakeViewURI {
		return mcp.ResourceContents{}, false
	}
	return mcp.ResourceContents{URI: uri, MIMEType: AppMIME, Text: "<!doctype html><title>List</title>", Meta: fakeViewMeta}, true
}

func (fakeApps) ViewOf(tool string) string {
	if tool == "tasks_list" {
		return fakeViewURI
	}
	return ""
}

// appsClient is the _meta of a request whose client declares MCP Apps.
var appsClient = map[string]any{mcp.MetaClientCapabilities: map[string]any{
	"extensions": map[string]any{ExtensionApps: map[string]any{"mimeTypes": []string{AppMIME}}},
}}

func newAppsHandler(t *testing.T) *Handler {
	t.Helper()
	h, err := New(Config{
		Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(), Resources: richContent{}, Apps: fakeApps{},
		SessionKeys: [][]byte{testSessionKey}, now: testNow, Logger: discardLog,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestAppsDeclaredInDiscover: server/discover declares the extension with
// the view's MIME type when views are served, and not otherwise.
func TestAppsDeclaredInDiscover(t *testing.T) {
	var d struct {
		Capabilities struct {
			Extensions map[string]struct{ MIMETypes []string }
		}
	}
	rec := serve(newAppsHandler(t), newCall(t, 1, "server/discover", nil, nil))
	mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "server/discover")
	decodeResult(t, rec.Body.Bytes(), &d)
	if got := d.Capabilities.Extensions[ExtensionApps].MIMETypes; len(got) != 1 || got[0] != AppMIME {
		t.Errorf("discover's extensions = %s, want %s with mimeTypes [%s]", rec.Body, ExtensionApps, AppMIME)
	}
	rec = serve(newTestHandler(t, nil, nil), newCall(t, 1, "server/discover", nil, nil))
	if strings.Contains(rec.Body.String(), ExtensionApps) {
		t.Errorf("discover without views declares %s: %s", ExtensionApps, rec.Body)
	}
}

// TestAppsOnlyForDeclaringClients: tools/list names the view of a tool,
// and resources/list lists the view, only for a client that declares the
// extension with the view's MIME type; others see the plain tools.
func TestAppsOnlyForDeclaringClients(t *testing.T) {
	h := newAppsHandler(t)
	other := map[string]any{mcp.MetaClientCapabilities: map[string]any{
		"extensions": map[string]any{ExtensionApps: map[string]any{"mimeTypes": []string{"text/html;profile=other"}}},
	}}
	for _, tc := range []struct {
		name string
		meta map[string]any
		want bool
	}{{"declared", appsClient, true}, {"undeclared", nil, false}, {"other MIME type", other, false}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, newCall(t, 1, "tools/list", nil, tc.meta))
			mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "tools/list")
			var tl struct {
				Tools []struct {
					Name string
					Meta struct {
						UI struct{ ResourceURI string } `json:"ui"`
					} `json:"_meta"`
				}
			}
			decodeResult(t, rec.Body.Bytes(), &tl)
			for _, tool := range tl.Tools {
				want := ""
				if tc.want && tool.Name == "tasks_list" {
					want = fakeViewURI
				}
				if got := tool.Meta.UI.ResourceURI; got != want {
					t.Errorf("tools/list: %s's _meta.ui.resourceUri = %q, want %q", tool.Name, got, want)
				}
			}
			rec = serve(h, newCall(t, 2, "resources/list", nil, tc.meta))
			mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "resources/list")
			if got := strings.Contains(rec.Body.String(), fakeViewURI); got != tc.want {
				t.Errorf("resources/list lists the view: %v, want %v (%s)", got, tc.want, rec.Body)
			}
		})
	}
}

// TestAppsReadView: resources/read returns the view with its MIME type
// and _meta.ui; a ui:// URI that names no view, or a view read by a client
// that did not declare the extension, is the usual -32602.
func TestAppsReadView(t *testing.T) {
	h := newAppsHandler(t)
	read := func(uri string) *http.Request {
		req := newCall(t, 1, "resources/read", map[string]any{"uri": uri}, appsClient)
		req.Header.Set(mcp.HeaderName, uri)
		return req
	}
	rec := serve(h, read(fakeViewURI))
	mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "resources/read")
	var res struct {
		Contents []struct {
			URI, MIMEType, Text string
			Meta                json.RawMessage `json:"_meta"`
		}
	}
	decodeResult(t, rec.Body.Bytes(), &res)
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != AppMIME || !strings.Contains(res.Contents[0].Text, "<title>List") ||
		string(res.Contents[0].Meta) != string(fakeViewMeta) {
		t.Errorf("resources/read %s = %s, want the view as %s with its _meta", fakeViewURI, rec.Body, AppMIME)
	}
	for _, tc := range []struct {
		uri  string
		meta map[string]any
	}{{"ui://taskwire/nothing", appsClient}, {fakeViewURI, nil}} {
		req := newCall(t, 1, "resources/read", map[string]any{"uri": tc.uri}, tc.meta)
		req.Header.Set(mcp.HeaderName, tc.uri)
		rec = serve(h, req)
		var msg struct{ Error struct{ Code int } }
		_ = json.Unmarshal(rec.Body.Bytes(), &msg)
		if msg.Error.Code != -32602 {
			t.Errorf("resources/read of %s (client declared the extension: %v) = %s, want -32602", tc.uri, tc.meta != nil, rec.Body)
		}
	}
}

// TestAppsLegacySessions: a 2025-11-25 or 2025-06-18 client that declared
// the extension at initialize (as the hosts of MCP Apps do) is told of it
// in initialize's capabilities and sees the views' _meta.ui in its
// session's tools/list and the views in resources/list; a session that
// did not declare it sees the tools and resources it always saw.
func TestAppsLegacySessions(t *testing.T) {
	h := newAppsHandler(t)
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		apps := `"extensions":{"` + ExtensionApps + `":{"mimeTypes":["` + AppMIME + `"]}}`
		// A client may declare far more than Taskwire reads: the session
		// keeps the declaration of Apps all the same.
		large := `"experimental":{"notes":"` + strings.Repeat("x", 2*maxSessionCapabilities) + `"}`
		for _, c := range []struct {
			caps     string
			declared bool
		}{{`{}`, false}, {`{` + large + `}`, false}, {`{` + apps + `}`, true}, {`{` + large + `,` + apps + `}`, true}} {
			caps, declared := c.caps, c.declared
			init := legacyPost("", version, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+
				`","capabilities":`+caps+`,"clientInfo":{"name":"host","version":"1"}}}`)
			init.Header.Del(mcp.HeaderSessionID)
			init.Header.Del(mcp.HeaderProtocolVersion)
			rec := serve(h, init)
			mcptest.ValidateServerMessageAt(t, version, rec.Body.Bytes(), "initialize")
			sid := rec.Header().Get(mcp.HeaderSessionID)
			if sid == "" || !strings.Contains(rec.Body.String(), `"extensions":{"`+ExtensionApps+`":{"mimeTypes":["`) {
				t.Fatalf("%s initialize = %d %s, want a session and the extension in its capabilities", version, rec.Code, rec.Body)
			}
			rec = serve(h, legacyPost(sid, version, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			mcptest.ValidateServerMessageAt(t, version, rec.Body.Bytes(), "tools/list")
			tools := rec.Body.String()
			if got := strings.Contains(tools, `"_meta":{"ui":{"resourceUri":"`+fakeViewURI+`"}}`); got != declared {
				t.Errorf("%s, declared %v: tools/list names the view: %v (%s)", version, declared, got, tools)
			}
			if strings.Count(tools, `"_meta":{"ui"`) > 1 {
				t.Errorf("%s: tools/list names a view on more tools than tasks_list: %s", version, tools)
			}
			res := serve(h, legacyPost(sid, version, `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)).Body.String()
			if got := strings.Contains(res, fakeViewURI); got != declared {
				t.Errorf("%s, declared %v: resources/list lists the view: %v (%s)", version, declared, got, res)
			}
		}
	}
}
