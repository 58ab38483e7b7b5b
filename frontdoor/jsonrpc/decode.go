package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Kind tells the kinds of JSON-RPC message apart.
type Kind int

// The kinds of message.
const (
	Invalid Kind = iota
	Request
	Notification
	Response
)

func (k Kind) String() string {
	switch k {
	case Request:
		return "request"
	case Notification:
		return "notification"
	case Response:
		return "response"
	}
	return "invalid"
}

// Message is one decoded JSON-RPC message. Its JSON members stay raw (and
// share the bytes Decode was given): the layer above decides what params
// must hold, and ids go back unchanged.
type Message struct {
	Kind   Kind
	ID     json.RawMessage // requests and responses; nil for notifications
	Method string          // requests and notifications
	Params json.RawMessage // an object or array, or nil when absent
	Result json.RawMessage // success responses
	Error  *Error          // error responses
}

// Decode reads one message. On failure it returns an *Error with code
// ParseError (not UTF-8 JSON) or InvalidRequest (a batch, or not a JSON-RPC
// message), and a Message of Kind Invalid whose ID is the message's id if
// that could be read, so that the error response can echo it. The Message is
// never nil.
//
// A body nested deeper than MaxDepth is a parse error, found before
// encoding/json sees it.
//
// Members are matched exactly: encoding/json's struct decoding would also
// accept "ID" or "Method", which JSON-RPC does not.
func Decode(data []byte) (*Message, error) {
	if !utf8.Valid(data) {
		return &Message{}, &Error{Code: ParseError, Message: msgNotJSON}
	}
	if tooDeep(data, MaxDepth) {
		return &Message{}, &Error{Code: ParseError, Message: msgTooDeep}
	}
	if firstByte(data) != '{' {
		switch {
		case !json.Valid(data):
			return &Message{}, &Error{Code: ParseError, Message: msgNotJSON}
		case firstByte(data) == '[':
			return &Message{}, invalid("batches are not supported: send one message per request")
		}
		return &Message{}, invalid("a message must be a JSON object")
	}
	// The whole of data is checked once here; Members, and whoever takes
	// the members apart further, rely on it.
	if !json.Valid(data) {
		return &Message{}, &Error{Code: ParseError, Message: msgNotJSON}
	}
	fields, _ := Members(data)
	return decodeFields(fields)
}

// MaxDepth is how deeply Decode lets arrays and objects nest. No MCP
// message needs more than a handful of levels, and a deeper body only
// makes encoding/json (whose own limit is 10000) build a deep tree and a
// parser stack for each level: cheap for the client, costly for the server.
const MaxDepth = 64

// The messages of Decode's parse errors. Decode returns a new *Error each
// time, since the caller may change it.
var (
	msgNotJSON = "parse error: the body is not valid UTF-8 JSON"
	msgTooDeep = "parse error: JSON nested deeper than " + strconv.Itoa(MaxDepth) + " levels"
)

// tooDeep reports whether arrays and objects in data nest deeper than
// limit. It counts brackets outside strings in one pass without
// allocating, and checks nothing else: data that is not JSON is left to
// json.Valid, so an unbalanced ']' may drive the count below zero.
func tooDeep(data []byte, limit int) bool {
	depth := 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// decodeFields classifies an object. The id is read first so that any later
// complaint can be sent back with it.
func decodeFields(f map[string]json.RawMessage) (*Message, error) {
	m := &Message{}
	rawID, hasID := f["id"]
	if hasID {
		if !ValidID(rawID) {
			return m, invalid("id must be a string or an integer")
		}
		m.ID = rawID
	}
	if string(f["jsonrpc"]) != `"2.0"` {
		return m, invalid(`jsonrpc must be "2.0"`)
	}
	if rawMethod, ok := f["method"]; ok {
		return m, m.decodeCall(f, rawMethod, hasID)
	}
	return m, m.decodeResponse(f, hasID)
}

// decodeCall fills a request (with an id) or a notification (without one).
func (m *Message) decodeCall(f map[string]json.RawMessage, rawMethod json.RawMessage, hasID bool) error {
	method, ok := String(rawMethod)
	if !ok {
		return invalid("method must be a string")
	}
	m.Method = method
	if _, ok := f["result"]; ok {
		return invalid("a message cannot have both method and result")
	}
	if _, ok := f["error"]; ok {
		return invalid("a message cannot have both method and error")
	}
	if p, ok := f["params"]; ok {
		if b := firstByte(p); b != '{' && b != '[' {
			return invalid("params must be an object or an array")
		}
		m.Params = p
	}
	m.Kind = Notification
	if hasID {
		m.Kind = Request
	}
	return nil
}

// decodeResponse fills a response, which needs an id and exactly one of
// result and error.
func (m *Message) decodeResponse(f map[string]json.RawMessage, hasID bool) error {
	res, hasResult := f["result"]
	rawErr, hasError := f["error"]
	switch {
	case !hasResult && !hasError:
		return invalid("a message needs a method (request, notification) or a result or error (response)")
	case !hasID:
		return invalid("a response needs an id")
	case hasResult && hasError:
		return invalid("a response has exactly one of result and error")
	case hasResult:
		m.Result = res
	default:
		e, err := decodeError(rawErr)
		if err != nil {
			return err
		}
		m.Error = e
	}
	m.Kind = Response
	return nil
}

// decodeError reads the error object of an error response.
func decodeError(raw json.RawMessage) (*Error, error) {
	f, ok := Members(raw)
	if !ok {
		return nil, invalid("error must be an object")
	}
	e := &Error{}
	if !isInteger(f["code"]) || json.Unmarshal(f["code"], &e.Code) != nil {
		return nil, invalid("error.code must be an integer")
	}
	if e.Message, ok = String(f["message"]); !ok {
		return nil, invalid("error.message must be a string")
	}
	if d, ok := f["data"]; ok {
		e.Data = d
	}
	return e, nil
}

// ValidID reports whether raw is an id MCP allows: a string or an integer,
// never null, a fraction, an exponent form or a structure. MCP's progress
// tokens follow the same rule.
func ValidID(raw json.RawMessage) bool {
	if firstByte(raw) == '"' {
		_, ok := String(raw)
		return ok
	}
	return isInteger(raw)
}

// isInteger reports whether raw is a JSON number written as an integer.
// Only the literal's syntax is checked, so ids beyond int64 survive intact.
func isInteger(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !json.Valid(raw) {
		return false
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return false
	}
	return !bytes.ContainsAny(raw, ".eE")
}

// firstByte returns the first non-space byte of data, or 0.
func firstByte(data []byte) byte {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return data[0]
}

func invalid(msg string) *Error {
	return &Error{Code: InvalidRequest, Message: "invalid request: " + msg}
}
