// Package jsonrpc is the JSON-RPC 2.0 wire layer of the front door: it tells
// the kinds of message apart, keeps ids exactly as the client sent them, and
// encodes responses and notifications. It knows nothing of MCP beyond the
// error codes MCP adds to JSON-RPC's, so the HTTP layer above it can decide
// what each problem means for the client.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Version is the only value of the "jsonrpc" member this package accepts and
// sends.
const Version = "2.0"

// Error codes. The first five are JSON-RPC's own; the range -32020..-32099
// belongs to the MCP specification, which defines the next three. Other
// codes in -32768..-32000 are deliberately absent: MCP forbids inventing
// meanings inside the reserved ranges.
const (
	ParseError     = -32700
	InvalidRequest = -32600
	MethodNotFound = -32601
	InvalidParams  = -32602
	Internal       = -32603

	HeaderMismatch                  = -32020
	MissingRequiredClientCapability = -32021
	UnsupportedProtocolVersion      = -32022

	// LegacyResourceNotFound is how MCP 2025-06-18 and 2025-11-25 answer
	// resources/read of an unknown resource; 2026-07-28 removed it in
	// favour of InvalidParams, so only legacy sessions get it.
	LegacyResourceNotFound = -32002

	// RateLimited is the code of a request refused by a rate limit (HTTP
	// 429). MCP defines no code for it and reserves -32768..-32000 (its
	// own codes, and the legacy ones it asks servers to leave unused), so
	// it is an application code outside that range, its digits recalling
	// the HTTP status.
	RateLimited = -31429

	// Unavailable is the code of a request no worker could serve just
	// now: every worker is gone, or their database cannot be reached
	// (HTTP 503, with Retry-After and data.retryAfterMs). Retrying it
	// later is safe. MCP defines no code for it either; like RateLimited
	// it lies outside the reserved range, its digits recalling the HTTP
	// status. A tools/call gets a tool result with isError instead.
	Unavailable = -31503
)

// Error is the error object of a JSON-RPC error response. It implements
// error so that a handler deep in the stack can return the exact code and
// message the client should see, and the transport sends it unchanged.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error returns the message and code, for logs.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Errorf returns an Error with code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// wire is the encoded form of every message this package sends. ID is raw
// JSON so that a response echoes the request's id byte for byte: a client
// matches on it, and re-encoding could turn 1 into 1.0 or lose precision.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// EncodeResult returns the success response to the request with id.
func EncodeResult(id json.RawMessage, result any) ([]byte, error) {
	if result == nil {
		return nil, fmt.Errorf("jsonrpc: nil result")
	}
	if a, ok := result.(Appender); ok && validID(id) {
		b := make([]byte, 0, 1024)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, id...)
		b = append(b, `,"result":`...)
		b, err := a.AppendJSON(b)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: encoding message: %w", err)
		}
		return append(b, '}'), nil
	}
	return marshal(wire{JSONRPC: Version, ID: id, Result: result})
}

// Appender is a result that writes itself, compact and on one line: a
// result holding a large member already in JSON (a tool's
// structuredContent) spares encoding/json re-validating it byte by byte,
// which cost more than writing it.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// validID reports whether id is a request id as it is sent on: a number
// or string read from a request, compact.
func validID(id json.RawMessage) bool {
	return len(id) > 0 && json.Valid(id) && !bytes.ContainsAny(id, " \t\r\n")
}

// Member is a member of a JSON object whose value is JSON already:
// compact and on one line, vouched for by whoever made it.
type Member struct {
	Name  string
	Value json.RawMessage
}

// AppendObjectWith appends v, which encodes as a JSON object, with members
// after its own, written as they are; a member without a value is left
// out.
func AppendObjectWith(b []byte, v any, members ...Member) ([]byte, error) {
	obj, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("jsonrpc: %T does not encode as an object", v)
	}
	b = append(b, obj[:len(obj)-1]...)
	first := len(obj) == 2
	for _, m := range members {
		if len(m.Value) == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendString(b, m.Name)
		b = append(b, ':')
		b = append(b, m.Value...)
	}
	return append(b, '}'), nil
}

// AppendString appends s as a JSON string, byte for byte as encoding/json
// writes it without HTML escaping (as marshal does): invalid UTF-8 becomes
// U+FFFD, and U+2028 and U+2029 are escaped so that the line stays one
// line for JavaScript too. Long text, such as a tool result's JSON copied
// into a text block, is written in one pass instead of encoding/json's
// encode-then-revalidate.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// EncodeError returns the error response to the request with id. A nil id
// is omitted, as MCP asks when the request's id could not be read.
func EncodeError(id json.RawMessage, e *Error) ([]byte, error) {
	return marshal(wire{JSONRPC: Version, ID: id, Error: e})
}

// EncodeNotification returns a notification of method with params. The
// method must not be empty: the wire form would drop it and send a message
// that is neither notification nor response.
func EncodeNotification(method string, params any) ([]byte, error) {
	if method == "" {
		return nil, fmt.Errorf("jsonrpc: notification without a method")
	}
	return marshal(wire{JSONRPC: Version, Method: method, Params: params})
}

// marshal is json.Marshal without HTML escaping: '<' and '&' in tool output
// reach the client as written, and the bytes stay on one line, which SSE
// needs.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("jsonrpc: encoding message: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
