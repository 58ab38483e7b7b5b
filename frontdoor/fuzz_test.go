package frontdoor

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
)

// fuzzHeaders are the request headers FuzzHandler varies, in the order of
// its string arguments. An empty value leaves the header out.
var fuzzHeaders = []string{mcp.HeaderProtocolVersion, mcp.HeaderMethod, mcp.HeaderName, "Accept", "Content-Type"}

// FuzzHandler sends fuzzed bodies and standard headers, with a valid token,
// through the whole handler over the golden backend. Whatever arrives, the
// answer must be one the transport rules allow: a known status, an empty
// 202, and otherwise exactly one schema-valid JSON-RPC response (a JSON
// body), or progress notifications then the response (an SSE stream).
// The corpus starts from the golden conversations.
func FuzzHandler(f *testing.F) {
	for _, seed := range goldenSeeds(f) {
		f.Add(seed.body, seed.headers[0], seed.headers[1], seed.headers[2], seed.headers[3], seed.headers[4], false)
	}
	// A body nested past jsonrpc.MaxDepth, refused before it is parsed.
	deep := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}}`
	f.Add([]byte(deep), "2026-07-28", "tools/list", "", "application/json, text/event-stream", "application/json", false)
	h := newTestHandler(f, nil, nil)
	f.Fuzz(func(t *testing.T, body []byte, version, method, name, accept, contentType string, readOnly bool) {
		req := httptest.NewRequest(http.MethodPost, testEndpoint, bytes.NewReader(body))
		for i, v := range []string{version, method, name, accept, contentType} {
			if v != "" {
				req.Header.Set(fuzzHeaders[i], v)
			}
		}
		token := tokenAll
		if readOnly {
			token = tokenRead
		}
		req.Header.Set("Authorization", "Bearer "+token)
		rec := serve(h, req)
		checkAnswer(t, rec, body, goldenVersion(h, req, string(body), rec.Body.Bytes()))
	})
}

// goldenSeed is the body and fuzzed headers of one golden request.
type goldenSeed struct {
	body    []byte
	headers [5]string // as fuzzHeaders
}

// goldenSeeds reads the request of every golden conversation, of both
// eras. Requests the fuzzer cannot express (another HTTP method or path, a
// session) still give their body and headers.
func goldenSeeds(tb testing.TB) []goldenSeed {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no golden files: %v", err)
	}
	legacy, _ := filepath.Glob("testdata/legacy/*.txtar")
	files = append(files, legacy...)
	var seeds []goldenSeed
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		s := goldenSeed{body: []byte(strings.TrimSuffix(section(ar, "request.body"), "\n"))}
		lines := strings.Split(strings.TrimSuffix(section(ar, "request"), "\n"), "\n")
		for _, l := range lines[1:] {
			k, v, _ := strings.Cut(l, ":")
			if i := slices.IndexFunc(fuzzHeaders, func(h string) bool { return strings.EqualFold(h, k) }); i >= 0 {
				s.headers[i] = strings.TrimSpace(v)
			}
		}
		seeds = append(seeds, s)
	}
	return seeds
}

// allowedStatuses are the statuses the endpoint may answer a POST with.
var allowedStatuses = []int{200, 202, 400, 401, 403, 404, 405, 413, 415}

// checkAnswer checks the response rec to a POST of body, whose messages
// must fit the schema of MCP version.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, body []byte, version string) {
	t.Helper()
	status, got := rec.Code, rec.Body.Bytes()
	if !slices.Contains(allowedStatuses, status) {
		t.Fatalf("status %d, want one of %v; body %q", status, allowedStatuses, got)
	}
	sent, _ := jsonrpc.Decode(body)
	switch ct := rec.Header().Get("Content-Type"); {
	case status == http.StatusAccepted:
		if len(got) != 0 || ct != "" {
			t.Fatalf("202 with Content-Type %q and body %q, want neither", ct, got)
		}
		if sent.Kind != jsonrpc.Notification {
			t.Fatalf("202 for a %v, want a notification", sent.Kind)
		}
	case ct == "application/json":
		checkResponse(t, got, sent, version, status)
	case ct == "text/event-stream" && status == http.StatusOK:
		checkStream(t, got, sent, version)
	default:
		t.Fatalf("status %d with Content-Type %q and body %q", status, ct, got)
	}
}

// checkResponse checks a JSON body: exactly one JSON-RPC response, valid
// by the schema, to the message sent, with the status its code calls for.
func checkResponse(t *testing.T, got []byte, sent *jsonrpc.Message, version string, status int) {
	t.Helper()
	m := checkServerMessage(t, got, sent, version, jsonrpc.Response)
	if m.Error == nil {
		if status != http.StatusOK {
			t.Fatalf("result with status %d: %s", status, got)
		}
		return
	}
	if want, ok := errorStatus[m.Error.Code]; ok && version == mcptest.Version && !transportRefusal(status) && status != want {
		t.Fatalf("error %d with status %d, want %d: %s", m.Error.Code, status, want, got)
	}
}

// errorStatus is the HTTP status of each JSON-RPC error code in the modern
// era, from the MCP transport rules (internal errors keep 200, as in
// go-sdk). The legacy era has rules of its own (a lost session is 404).
var errorStatus = map[int]int{
	jsonrpc.ParseError:                      400,
	jsonrpc.InvalidRequest:                  400,
	jsonrpc.MethodNotFound:                  404,
	jsonrpc.InvalidParams:                   400,
	jsonrpc.HeaderMismatch:                  400,
	jsonrpc.MissingRequiredClientCapability: 400,
	jsonrpc.UnsupportedProtocolVersion:      400,
	jsonrpc.Internal:                        200,
}

// transportRefusal reports whether status is one the HTTP layer fixes
// whatever the JSON-RPC code of the body.
func transportRefusal(status int) bool {
	switch status {
	case 401, 403, 405, 413, 415:
		return true
	}
	return false
}

// checkStream checks an SSE body: "message" events of one data line each,
// holding progress notifications and, last, the response.
func checkStream(t *testing.T, got []byte, sent *jsonrpc.Message, version string) {
	t.Helper()
	events := strings.Split(string(got), "\n\n")
	if len(events) < 2 || events[len(events)-1] != "" {
		t.Fatalf("SSE body does not end with a complete event: %q", got)
	}
	events = events[:len(events)-1]
	for i, ev := range events {
		data, ok := strings.CutPrefix(ev, "event: message\ndata: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("malformed SSE event %q", ev)
		}
		kind := jsonrpc.Notification
		if i == len(events)-1 {
			kind = jsonrpc.Response
		}
		checkServerMessage(t, []byte(data), sent, version, kind)
	}
}

// serverMessage is what the checks read of a message the server sent; the
// schema checks the rest. jsonrpc.Decode does not fit: it reads client
// messages, and refuses an error response without id, which a server
// sends when it could not read the request's.
type serverMessage struct {
	ID     json.RawMessage
	Method *string
	Result json.RawMessage
	Error  *jsonrpc.Error
}

func (m *serverMessage) kind() jsonrpc.Kind {
	switch {
	case m.Method != nil && m.ID == nil && m.Result == nil && m.Error == nil:
		return jsonrpc.Notification
	case m.Method == nil && (m.Result == nil) != (m.Error == nil):
		return jsonrpc.Response
	}
	return jsonrpc.Invalid
}

// checkServerMessage checks that raw is one JSON-RPC message of kind, valid
// by the schema of version for the method sent, and that a response echoes
// the id sent when it has one.
func checkServerMessage(t *testing.T, raw []byte, sent *jsonrpc.Message, version string, kind jsonrpc.Kind) *serverMessage {
	t.Helper()
	var m serverMessage
	if !json.Valid(raw) || json.Unmarshal(raw, &m) != nil {
		t.Fatalf("not one JSON-RPC message: %q", raw)
	}
	if got := m.kind(); got != kind {
		t.Fatalf("server sent a %v, want a %v: %s", got, kind, raw)
	}
	if m.ID != nil && string(m.ID) != string(sent.ID) {
		t.Fatalf("response id %s, want the id sent %s", m.ID, sent.ID)
	}
	method := ""
	if sent.Kind == jsonrpc.Request {
		method = sent.Method
	}
	mcptest.ValidateServerMessageAt(t, version, raw, method)
	if t.Failed() {
		t.FailNow()
	}
	return &m
}
