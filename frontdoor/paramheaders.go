package frontdoor

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// checkParamHeaders compares the Mcp-Param headers of a tools/call with
// its arguments, for each argument the tool's inputSchema mirrors into one
// (MCP 2026-07-28, Streamable HTTP, "Server Behavior for Custom Headers"):
// a proxy may have routed the request on the header, so the tool must not
// run on a body that says otherwise. An argument that is present and not
// null needs its header, equal to it once decoded; one that is absent or
// null must have none, since a header then claims a value the tool will
// not see. Headers the tool does not declare are ignored, as the spec
// asks.
func checkParamHeaders(hdr http.Header, args json.RawMessage, params []mcp.ParamHeader) *jsonrpc.Error {
	if len(params) == 0 {
		return nil
	}
	for _, p := range params {
		if e := checkParamHeader(hdr, args, p); e != nil {
			return e
		}
	}
	return nil
}

// checkParamHeader compares the header of p with its argument in args.
func checkParamHeader(hdr http.Header, args json.RawMessage, p mcp.ParamHeader) *jsonrpc.Error {
	values := hdr.Values(p.Header())
	arg, present := p.In(args)
	if !present {
		if len(values) > 0 {
			return mismatch("the " + p.Header() + " header is there but " + p.Argument() + " is not: send the header only with its argument")
		}
		return nil
	}
	v, e := requiredHeader(hdr, p.Header())
	if e != nil {
		if len(values) == 0 {
			return mismatch("the " + p.Header() + " header is required: the tool mirrors " + p.Argument() + " into it (x-mcp-header), and the call has it")
		}
		return e
	}
	if !sameValue(arg, v) {
		return mismatch("the " + p.Header() + " header does not match " + p.Argument())
	}
	return nil
}

// sameValue reports whether the header value h (decoded) says the same as
// the JSON value arg, written as clients write it: a string as it is, a
// boolean as true or false, a number in decimals, compared as a number
// (42.0 is 42, as the spec suggests). An object or an array cannot be
// mirrored, so no header matches it.
func sameValue(arg json.RawMessage, h string) bool {
	switch arg[0] {
	case '"':
		s, ok := jsonrpc.String(arg)
		return ok && s == h
	case 't', 'f':
		return string(arg) == h
	case '{', '[':
		return false
	}
	a, okA := decimal(string(arg))
	b, okB := decimal(h)
	return okA && okB && a.Cmp(b) == 0
}

// maxExponent bounds the exponent of a number compared: big.Rat would
// otherwise spend memory and time on 1e999999999, six bytes long.
const maxExponent = 400

// decimal reads s as a number written in decimals, with an optional sign,
// fraction and exponent: what JSON and clients write, and nothing else
// big.Rat would read (fractions like 1/2, hexadecimal, underscores).
func decimal(s string) (*big.Rat, bool) {
	if s == "" || strings.Trim(s, "+-.0123456789eE") != "" {
		return nil, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(s[i+1:])
		if err != nil || exp > maxExponent || exp < -maxExponent {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}
