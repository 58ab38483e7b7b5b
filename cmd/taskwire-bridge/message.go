package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// kind is what a JSON-RPC message is, which decides what the bridge owes
// it: a request gets exactly one reply line, the others get none.
type kind int

const (
	request kind = iota
	notification
	response // a client's answer to a request the server sent
)

// message is one line of standard input, decoded just enough to route it:
// the bridge forwards the line itself, never a re-encoding of it.
type message struct {
	line   []byte // the message as read, without the line end
	kind   kind
	id     json.RawMessage // requests and responses
	method string
	params map[string]json.RawMessage
}

// errBadLine is a line that is not JSON-RPC; the client gets -32600 for it.
type errBadLine struct{ msg string }

func (e errBadLine) Error() string { return e.msg }

// errNotJSON is a line that is not JSON at all; the client gets -32700.
var errNotJSON = errors.New("parse error: the line is not valid UTF-8 JSON")

// parseMessage decodes one line. A line that is JSON but no message gets
// an errBadLine with a message that keeps the id when one can be read.
func parseMessage(line []byte) (*message, error) {
	if !utf8.Valid(line) || !json.Valid(line) {
		return nil, errNotJSON
	}
	if t := bytes.TrimLeft(line, " \t"); len(t) == 0 || t[0] != '{' {
		return &message{}, errBadLine{"invalid request: send one JSON-RPC object per line (batches are not part of MCP)"}
	}
	var f struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &f); err != nil {
		return &message{}, errBadLine{"invalid request: " + err.Error()}
	}
	m := &message{line: line, id: f.ID}
	switch {
	case f.Method != nil && f.ID == nil:
		m.kind = notification
	case f.Method != nil && validID(f.ID):
		m.kind = request
	case f.Method == nil && validID(f.ID) && (f.Result != nil || f.Error != nil):
		m.kind = response
	default:
		return &message{id: f.ID}, errBadLine{"invalid request: a message needs a method, an id (a string or a number) or both, or an id and a result or error"}
	}
	if f.Method != nil {
		m.method = *f.Method
	}
	_ = json.Unmarshal(f.Params, &m.params) // params that are no object have no _meta
	return m, nil
}

// validID reports whether raw is an id MCP allows: a string or a number.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// idKey spells an id one way whatever spacing the client used, so that a
// notifications/cancelled finds the request it names.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// str returns the string member name of obj.
func str(obj map[string]json.RawMessage, name string) (string, bool) {
	var s string
	if json.Unmarshal(obj[name], &s) != nil {
		return "", false
	}
	return s, true
}

// metaVersion returns the protocol version a modern request names in
// params._meta, and whether it names one.
func (m *message) metaVersion() (string, bool) {
	var meta map[string]json.RawMessage
	if json.Unmarshal(m.params["_meta"], &meta) != nil {
		return "", false
	}
	if _, ok := meta[mcp.MetaProtocolVersion]; !ok {
		return "", false
	}
	v, _ := str(meta, mcp.MetaProtocolVersion)
	return v, true
}

// cancelledID returns the requestId of a notifications/cancelled.
func (m *message) cancelledID() (string, bool) {
	raw := m.params["requestId"]
	if m.method != "notifications/cancelled" || !validID(raw) {
		return "", false
	}
	return idKey(raw), true
}
