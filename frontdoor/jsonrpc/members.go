package jsonrpc

import (
	"encoding/json"
	"unicode/utf8"
)

// A request's body is checked once, by Decode; its params, _meta and the
// objects inside them are then taken apart again and again (the era, the
// rate limit, the _meta rules, the tool call). encoding/json would check
// each of those again and build each map through reflection, which was
// about a twentieth of the front door's CPU per call: Members and String
// take apart what is already known to be JSON, and encoding/json is left
// for what they do not do (keys and strings with escapes).

// Members returns the members of the JSON object raw, as
// json.Unmarshal into a map[string]json.RawMessage would (the last of
// duplicate keys wins), with each value a subslice of raw. raw must be
// valid JSON or part of a message Decode accepted: Members checks the
// object's structure, not the syntax of its values. It reports false if
// raw is not an object.
func Members(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	s := scan{data: raw}
	s.space()
	if !s.take('{') {
		return nil, false
	}
	m := make(map[string]json.RawMessage, 8)
	s.space()
	if s.take('}') {
		return m, s.end()
	}
	for {
		key, ok := s.key()
		if !ok {
			return nil, false
		}
		s.space()
		if !s.take(':') {
			return nil, false
		}
		s.space()
		start := s.i
		if !s.value() {
			return nil, false
		}
		m[key] = raw[start:s.i:s.i]
		s.space()
		if s.take('}') {
			return m, s.end()
		}
		if !s.take(',') {
			return nil, false
		}
		s.space()
	}
}

// String returns the JSON string raw as a Go string, and false if raw is
// not one. A string without escapes is taken as it stands once it is
// valid UTF-8 without control characters; others go to encoding/json.
func String(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; plain(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// plain reports whether b, the inside of a JSON string, holds neither
// quotes, escapes nor control characters and is valid UTF-8: then it is
// its own value.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// scan walks JSON text that is already known to be well formed. On text
// that is not, it stops without panicking: it reports false where the
// object's own structure is broken, and passes over what is wrong inside
// its values.
type scan struct {
	data []byte
	i    int
}

func (s *scan) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) take(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only space is left.
func (s *scan) end() bool {
	s.space()
	return s.i == len(s.data)
}

// key reads a member's name.
func (s *scan) key() (string, bool) {
	start := s.i
	if !s.str() {
		return "", false
	}
	return String(s.data[start:s.i])
}

// str moves past a string that starts at s.i.
func (s *scan) str() bool {
	if !s.take('"') {
		return false
	}
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '"':
			s.i++
			return true
		case '\\':
			s.i++ // and past the byte it escapes
		}
		s.i++
	}
	return false
}

// value moves past the value that starts at s.i.
func (s *scan) value() bool {
	if s.i >= len(s.data) {
		return false
	}
	switch s.data[s.i] {
	case '"':
		return s.str()
	case '{', '[':
		return s.nested()
	}
	// A number, true, false or null: up to the next separator.
	start := s.i
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return s.i > start
		case '"', '{', '[', ':':
			return false
		}
		s.i++
	}
	return s.i > start
}

// nested moves past an object or array that starts at s.i, counting
// brackets outside strings.
func (s *scan) nested() bool {
	depth := 0
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '"':
			if !s.str() {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}
