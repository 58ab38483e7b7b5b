package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParamHeaders: once a tools/list has shown a tool's x-mcp-header
// annotations, a modern call of it carries an Mcp-Param header for each
// annotated argument present and not null, encoded as the transport
// says; a tool not listed, or listed with invalid annotations, gets none.
func TestParamHeaders(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header
	}))
	defer srv.Close()
	u := &upstream{url: srv.URL, client: srv.Client()}
	u.learnTools(json.RawMessage(`{"tools":[
		{"name":"route","inputSchema":{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"priority":{"type":"integer","x-mcp-header":"Priority"},
			"verbose":{"type":"boolean","x-mcp-header":"Verbose"},
			"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
			"note":{"type":"string","x-mcp-header":"Note"},
			"query":{"type":"string"}}}},
		{"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}]}`))

	call := func(name, args string) map[string]string {
		t.Helper()
		m, err := parseMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + modernMeta + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := u.post(context.Background(), m, u.eraOf(m))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		out := map[string]string{}
		for k, v := range <-got {
			if len(k) > len("Mcp-Param-") && k[:len("Mcp-Param-")] == "Mcp-Param-" {
				out[k] = v[0]
			}
		}
		return out
	}
	want := map[string]string{
		"Mcp-Param-Region":   "=?base64?IFrDvHJpY2g=?=",
		"Mcp-Param-Priority": "-7",
		"Mcp-Param-Verbose":  "false",
		"Mcp-Param-Zone":     "b",
	}
	if diff := cmp.Diff(want, call("route", `{"region":" Zürich","priority":-7,"verbose":false,"target":{"zone":"b"},"note":null,"query":"q"}`)); diff != "" {
		t.Errorf("Mcp-Param headers of route (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ name, args string }{{"bad", `{"n":1.5}`}, {"unlisted", `{"region":"x"}`}} {
		if h := call(c.name, c.args); len(h) != 0 {
			t.Errorf("Mcp-Param headers of %s = %v, want none", c.name, h)
		}
	}
}
