package frontdoor

import (
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// checkHeaders compares the standard headers with the body (MCP 2026-07-28, Streamable HTTP, standard headers).
// A body field that is absent or not a string is left to the later params
// checks, which answer -32602; here only the headers are at fault.
func checkHeaders(q *request) *jsonrpc.Error {
	version, err := requiredHeader(q.header, mcp.HeaderProtocolVersion)
	if err != nil {
		return err
	}
	if v, ok := str(q.meta, mcp.MetaProtocolVersion); ok && v != version {
		return mismatch("the MCP-Protocol-Version header does not match params._meta protocolVersion")
	}
	method, err := requiredHeader(q.header, mcp.HeaderMethod)
	if err != nil {
		return err
	}
	if method != q.method {
		return mismatch("the Mcp-Method header does not match the method")
	}
	member, named := nameMembers[q.method]
	if !named {
		return nil
	}
	name, err := requiredHeader(q.header, mcp.HeaderName)
	if err != nil {
		return err
	}
	if n, ok := str(q.params, member); ok && n != name {
		return mismatch("the Mcp-Name header does not match params." + member)
	}
	return nil
}

// nameMembers maps each method that needs an Mcp-Name header to the params
// member the header repeats.
var nameMembers = map[string]string{
	"tools/call":     "name",
	"prompts/get":    "name",
	"resources/read": "uri",
	"tasks/get":      "taskId",
	"tasks/update":   "taskId",
	"tasks/cancel":   "taskId",
}

// checkNotification checks a notification's headers. The spec leaves them
// open by the spec; taskwire asks for what every POST carries, a served
// MCP-Protocol-Version, and refuses an Mcp-Method that contradicts the body.
func checkNotification(hdr http.Header, m *jsonrpc.Message) *jsonrpc.Error {
	version, err := requiredHeader(hdr, mcp.HeaderProtocolVersion)
	if err != nil {
		return err
	}
	if !slices.Contains(modernVersions, version) {
		return unsupportedVersion(version, "unsupported protocol version in the MCP-Protocol-Version header")
	}
	if len(hdr.Values(mcp.HeaderMethod)) == 0 {
		return nil
	}
	method, err := requiredHeader(hdr, mcp.HeaderMethod)
	if err != nil {
		return err
	}
	if method != m.Method {
		return mismatch("the Mcp-Method header does not match the method")
	}
	return nil
}

// requiredHeader returns the decoded value of the header name, which must
// be present exactly once.
func requiredHeader(hdr http.Header, name string) (string, *jsonrpc.Error) {
	values := hdr.Values(name)
	switch len(values) {
	case 0:
		return "", mismatch("the " + name + " header is required")
	case 1:
	default:
		return "", mismatch("the " + name + " header must appear once")
	}
	v, err := decodeHeader(values[0])
	if err != nil {
		return "", mismatch("the " + name + " header is malformed: " + err.Error())
	}
	return v, nil
}

// decodeHeader undoes the =?base64?…?= form that carries values HTTP
// headers cannot (non-ASCII names, for one). The markers are matched
// exactly, in lower case; anything else is a literal value, which may
// hold only what a header value can (visible ASCII, space and tab):
// anything else a client must send encoded.
func decodeHeader(v string) (string, error) {
	const prefix, suffix = "=?base64?", "?="
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", errors.New("it holds a character a header value cannot carry as it is; send the value as =?base64?<base64 of its UTF-8>?=")
		}
	}
	if len(v) < len(prefix)+len(suffix) || !strings.HasPrefix(v, prefix) || !strings.HasSuffix(v, suffix) {
		return v, nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(prefix) : len(v)-len(suffix)])
	if err != nil {
		return "", errors.New("invalid base64")
	}
	if !utf8.Valid(b) {
		return "", errors.New("the base64 value is not UTF-8")
	}
	return string(b), nil
}

func mismatch(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.HeaderMismatch, Message: "header mismatch: " + msg}
}
