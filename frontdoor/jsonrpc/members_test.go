package jsonrpc

import (
	"encoding/json"
	"maps"
	"testing"
)

var memberCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":1,"a":2}`,
	`{ "a" : "x" , "b" : [ 1 , { "c" : "]}" } ] , "d" : null }`,
	`{"\u006eame":"x","n\"q":"\\","tab\t":true}`,
	`{"a":"\ud83d\ude00","b":"é","c":"\u0000"}`,
	`{"a":-1.5e+3,"b":false,"c":{"d":{"e":[[[]]]}},"f":"\\\"}"}`,
	"{\"a\":\"\xff\"}",
	`[]`, `"s"`, `1`, `null`,
}

// TestMembersMatchesEncodingJSON holds Members to what json.Unmarshal
// into a map of raw members makes of the same object.
func TestMembersMatchesEncodingJSON(t *testing.T) {
	for _, c := range memberCases {
		checkMembers(t, []byte(c))
	}
}

// TestMembersOfBrokenText: text that is not JSON (Members' callers never
// pass it) is refused or passed over, never a panic.
func TestMembersOfBrokenText(t *testing.T) {
	for _, c := range []string{``, `{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":"\`, `{"a":[1}`, `{"a":1}x`, `{"a":}`, `{"\`} {
		if m, ok := Members([]byte(c)); ok {
			t.Errorf("Members(%q) = %v, want not an object", c, m)
		}
	}
}

func FuzzMembers(f *testing.F) {
	for _, c := range memberCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Members(data) // never panics, whatever the text
		String(data)
		if json.Valid(data) {
			checkMembers(t, data)
		}
	})
}

// checkMembers compares Members, and String on each member, with
// encoding/json for valid JSON data.
func checkMembers(t *testing.T, data []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	wantErr := json.Unmarshal(data, &want) // null too makes a nil map
	got, ok := Members(data)
	if ok != (wantErr == nil && firstByte(data) == '{') || !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Fatalf("Members(%q) = %q %v, want %q (%v)", data, got, ok, want, wantErr)
	}
	for _, raw := range got {
		var s string
		isStr := raw[0] == '"' && json.Unmarshal(raw, &s) == nil // null too unmarshals into a string
		if got, ok := String(raw); ok != isStr || got != s {
			t.Fatalf("String(%s) = %q %v, want %q", raw, got, ok, s)
		}
	}
}
