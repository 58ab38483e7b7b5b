package main

import (
	"strings"
	"testing"
)

// TestHeaderValue: names a header cannot carry as they are travel in the
// =?base64?…?= form, so the server's header check still matches the body.
func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"tasks_create":    "tasks_create",
		"tâches":          "=?base64?dMOiY2hlcw==?=",
		" padded":         "=?base64?IHBhZGRlZA==?=",
		"=?base64?eA==?=": "=?base64?PT9iYXNlNjQ/ZUE9PT89?=",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadEvents: multi-line data is joined, comments (keep-alives) are
// skipped, and an event cut off by the end of the stream is dropped.
func TestReadEvents(t *testing.T) {
	stream := ": keep-alive\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata: {\"b\":2}\r\n\r\ndata: {\"cut\""
	var got []string
	if err := readEvents(strings.NewReader(stream), func(d []byte) bool { got = append(got, string(d)); return true }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"{\"a\":\n1}", "{\"b\":2}"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("readEvents = %q, want %q", got, want)
	}
}

// FuzzParseMessage: no line makes the parser panic, and whatever it calls
// a request has an id MCP allows.
func FuzzParseMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`,
		`{"jsonrpc":"2.0","id":"e","result":{}}`, `[{}]`, `{"id":null,"method":"m"}`, `{"method":1}`, `"x"`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := parseMessage(line)
		if err == nil && m.kind == request && !validID(m.id) {
			t.Errorf("parseMessage(%q) is a request with id %s", line, m.id)
		}
		if err == nil {
			m.metaVersion()
			m.cancelledID()
		}
	})
}
