package main

import (
	"encoding/json"
	"net/http"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// learnTools keeps the x-mcp-header annotations of the tools in result, a
// page of tools/list, so that later calls carry their Mcp-Param headers:
// a client of MCP 2026-07-28 over HTTP must mirror them, and the client on
// standard input may not (stdio clients may ignore them), so the bridge
// does. A tool whose annotations break the spec's rules is forgotten: no
// header is sent for it, and the server, which offers no such tool,
// judges the call.
func (u *upstream) learnTools(result json.RawMessage) {
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.params == nil {
		u.params = map[string][]mcp.ParamHeader{}
	}
	for _, t := range r.Tools {
		headers, err := mcp.ParamHeaders(t.InputSchema)
		if err != nil || len(headers) == 0 {
			delete(u.params, t.Name)
			continue
		}
		u.params[t.Name] = headers
	}
}

// setParamHeaders adds to h the Mcp-Param headers of tools/call m: each
// annotated argument present and not null, written as the transport
// says (a string as it is, an integer in decimals, a boolean as true or
// false) and encoded when a header cannot carry it as it is.
func (u *upstream) setParamHeaders(h http.Header, m *message) {
	name, _ := str(m.params, "name")
	u.mu.Lock()
	headers := u.params[name]
	u.mu.Unlock()
	for _, p := range headers {
		arg, ok := p.In(m.params["arguments"])
		if !ok {
			continue
		}
		if v, ok := headerText(arg); ok {
			h.Set(p.Header(), headerValue(v))
		}
	}
}

// headerText is the text of a string, number or boolean argument; an
// object or an array cannot be mirrored.
func headerText(arg json.RawMessage) (string, bool) {
	switch arg[0] {
	case '"':
		var s string
		return s, json.Unmarshal(arg, &s) == nil
	case '{', '[':
		return "", false
	}
	return string(arg), true
}
