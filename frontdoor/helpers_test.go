package frontdoor

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// newCall returns a well-formed POST of method with params, whose _meta
// gets the required keys plus meta; tools/call takes its Mcp-Name from
// params["name"].
func newCall(t testing.TB, id any, method string, params map[string]any, meta map[string]any) *http.Request {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	m := map[string]any{
		mcp.MetaProtocolVersion:    mcp.LatestVersion,
		mcp.MetaClientCapabilities: map[string]any{},
	}
	for k, v := range meta {
		m[k] = v
	}
	params["_meta"] = m
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, testEndpoint, strings.NewReader(string(body)))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tokenAll)
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.LatestVersion)
	req.Header.Set(mcp.HeaderMethod, method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set(mcp.HeaderName, name)
	}
	return req
}

// serve runs req through h and returns the recorded response.
func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decodeResult decodes the result of a JSON response into v, failing t on
// an error response.
func decodeResult(t testing.TB, body []byte, v any) {
	t.Helper()
	var msg struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Result == nil {
		t.Fatalf("not a result: %s (%v)", body, err)
	}
	if err := json.Unmarshal(msg.Result, v); err != nil {
		t.Fatal(err)
	}
}

// discardLog is the logger of tests that read no log.
var discardLog = slog.New(slog.DiscardHandler)

// logSink is a slog.Handler that hands each record to a channel, so a test
// can wait for the record of a request instead of sleeping.
type logSink struct {
	records chan slog.Record
}

func newLogSink() *logSink { return &logSink{records: make(chan slog.Record, 100)} }

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	s.records <- r.Clone()
	return nil
}

// attrs returns the attributes of r as strings.
func attrs(r slog.Record) map[string]string {
	out := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		out[a.Key] = a.Value.String()
		return true
	})
	return out
}
