package nodetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
)

// WireRecorder is an HTTP transport for the MCP client under test: it adds
// the bearer token, and validates every JSON-RPC message the server sends
// (plain JSON bodies and each SSE event, as they stream) against the
// 2026-07-28 schema, keeping them for the test to inspect.
type WireRecorder struct {
	t       testing.TB
	token   string
	base    http.RoundTripper
	version string // the schema revision to validate against; "" is 2026-07-28

	mu       sync.Mutex
	messages []recorded
	status   map[string]int // of the last answer to each HTTP method
}

type recorded struct {
	Method string // method of the request that produced the message
	Raw    json.RawMessage
}

// NewWireRecorder records what the server answers requests sent through
// base, adding token as the bearer (none: requests without a token), and
// validating against the schema revision version ("" is 2026-07-28).
func NewWireRecorder(t testing.TB, token, version string, base http.RoundTripper) *WireRecorder {
	return &WireRecorder{t: t, token: token, version: version, base: base}
}

// RoundTrip sends req with the token and records the answer.
func (w *WireRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	var msg struct{ Method string }
	json.Unmarshal(body, &msg)
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	if w.token != "" { // none: a request without a token
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	resp, err := w.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	if w.status == nil {
		w.status = map[string]int{}
	}
	w.status[req.Method] = resp.StatusCode
	w.mu.Unlock()
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		resp.Body = &sseTap{ReadCloser: resp.Body, onEvent: func(data []byte) { w.record(msg.Method, data) }}
	case strings.HasPrefix(ct, "application/json"):
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			w.record(msg.Method, raw)
		}
		resp.Body = io.NopCloser(bytes.NewReader(raw))
	}
	return resp, nil
}

func (w *WireRecorder) record(method string, raw []byte) {
	if w.version == "" {
		mcptest.ValidateServerMessage(w.t, raw, method)
	} else {
		mcptest.ValidateServerMessageAt(w.t, w.version, raw, method)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = append(w.messages, recorded{Method: method, Raw: append(json.RawMessage(nil), raw...)})
}

// Sent returns the messages recorded for requests of method.
func (w *WireRecorder) Sent(method string) []json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []json.RawMessage
	for _, m := range w.messages {
		if m.Method == method {
			out = append(out, m.Raw)
		}
	}
	return out
}

// sseTap passes an SSE body through unchanged while handing the data of
// each complete event to onEvent.
type sseTap struct {
	io.ReadCloser
	onEvent func([]byte)
	pending bytes.Buffer
}

func (s *sseTap) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.pending.Write(p[:n])
	for {
		buf := s.pending.Bytes()
		i := bytes.Index(buf, []byte("\n\n"))
		if i < 0 {
			break
		}
		event := append([]byte(nil), buf[:i]...)
		s.pending.Next(i + 2)
		var data [][]byte
		sc := bufio.NewScanner(bytes.NewReader(event))
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				data = append(data, bytes.TrimPrefix(d, []byte(" ")))
			}
		}
		if len(data) > 0 {
			s.onEvent(bytes.Join(data, []byte("\n")))
		}
	}
	return n, err
}

// StatusOf returns the status of the last answer to an HTTP method.
func (w *WireRecorder) StatusOf(method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status[method]
}
