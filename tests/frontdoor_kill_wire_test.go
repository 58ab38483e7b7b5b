package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseReader reads an SSE stream as a client does: an event is delivered
// once the blank line that ends it has arrived, never before.
type sseReader struct {
	body    io.ReadCloser
	r       *bufio.Reader
	pending bytes.Buffer // what arrived of an event not ended yet
}

func newSSEReader(resp *http.Response) *sseReader {
	return &sseReader{body: resp.Body, r: bufio.NewReader(resp.Body)}
}

// next returns the data of the next whole event, skipping comments
// (keep-alives); at the end of the stream it returns what ended it
// (io.EOF when the server ended it cleanly), and what arrived of an event
// not ended yet stays in pending, undelivered.
func (s *sseReader) next() (string, error) {
	var data []string
	for {
		line, err := s.r.ReadString('\n')
		s.pending.WriteString(line)
		if err != nil {
			return "", err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && data != nil:
			s.pending.Reset()
			return strings.Join(data, "\n"), nil
		case line == "":
			s.pending.Reset() // the end of a comment
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// sseMessage is what every event of a stream must be: a JSON-RPC 2.0
// notification, request or response.
type sseMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// parseMessage parses data as a whole JSON-RPC message.
func parseMessage(data string) (sseMessage, error) {
	var m sseMessage
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return m, err
	}
	if m.JSONRPC != "2.0" || (m.Method == "" && m.ID == nil) || (m.Method == "" && m.Result == nil && m.Error == nil) {
		return m, errors.New("not a JSON-RPC 2.0 message")
	}
	return m, nil
}

// expect reads the next event of the stream called what, which must be a
// whole JSON-RPC message.
func (s *sseReader) expect(t *testing.T, what string) sseMessage {
	t.Helper()
	data, err := s.next()
	if err != nil {
		t.Fatalf("%s ended before its first event: %v", what, err)
	}
	m, err := parseMessage(data)
	if err != nil {
		t.Fatalf("%s delivered %q: %v", what, data, err)
	}
	return m
}

// drain reads the stream called what, cut off by a killed front door, to
// its end: it must end (with an error, or EOF) before the request's
// deadline, and every event delivered meanwhile must be a whole JSON-RPC
// message.
func (s *sseReader) drain(t *testing.T, what string) {
	t.Helper()
	defer s.body.Close()
	start := time.Now()
	n := 0
	for {
		data, err := s.next()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s was still open %v after the kill, want it ended", what, time.Since(start).Round(time.Millisecond))
			}
			t.Logf("%s ended %v after the kill with %v, %d whole events after the kill, %d bytes of an unended event not delivered", what, time.Since(start).Round(time.Millisecond), err, n, s.pending.Len())
			return
		}
		n++
		if _, err := parseMessage(data); err != nil {
			t.Errorf("%s delivered %q after the kill: %v, want whole JSON-RPC messages only", what, data, err)
		}
	}
}

// callBody is a 2026-07-28 tools/call of name with args, asking for
// progress at progressToken unless it is "".
func callBody(name string, args map[string]any, progressToken string) string {
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	if progressToken != "" {
		meta["progressToken"] = progressToken
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args, "_meta": meta}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// mcpPost is a POST of a 2026-07-28 request of method (about name, if
// set) to the front door at addr, with token, and with request id unless
// it is "".
func mcpPost(ctx context.Context, addr, token, id, method, name, body string) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/api/mcp", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{
		"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method,
	} {
		req.Header.Set(k, v)
	}
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	return req
}

// openStream sends a 2026-07-28 tools/call of name with args and request
// id, asking for progress, to the front door at addr, and returns its SSE
// stream.
func openStream(t *testing.T, ctx context.Context, addr, token, id, name string, args map[string]any) *sseReader {
	t.Helper()
	resp, err := http.DefaultClient.Do(mcpPost(ctx, addr, token, id, "tools/call", name, callBody(name, args, "p")))
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("%s with progress = %d %s, want 200 and an SSE stream", name, resp.StatusCode, ct)
	}
	return newSSEReader(resp)
}

// tryCall sends a 2026-07-28 tools/call of name with args and request id
// to the front door at addr and returns its answer, nil when none came.
func tryCall(ctx context.Context, addr, token, id, name string, args map[string]any) map[string]any {
	resp, err := http.DefaultClient.Do(mcpPost(ctx, addr, token, id, "tools/call", name, callBody(name, args, "")))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil
	}
	return answerOf(raw)
}

// answerOf is the response in raw, a JSON body or an SSE stream, decoded;
// nil when it holds none.
func answerOf(raw []byte) map[string]any {
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		s := &sseReader{r: bufio.NewReader(bytes.NewReader(raw))}
		for {
			data, err := s.next()
			if err != nil {
				return nil
			}
			if m, err := parseMessage(data); err == nil && m.Method == "" {
				raw = []byte(data)
				break
			}
		}
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// structuredOf is the structured content of a tools/call answer.
func structuredOf(t *testing.T, answer map[string]any) map[string]any {
	t.Helper()
	res, _ := answer["result"].(map[string]any)
	out, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("answer %v has no structured content", answer)
	}
	return out
}

// refsOf is the refs of a tasks_import's structured content.
func refsOf(out map[string]any) []string {
	var refs []string
	for _, r := range out["refs"].([]any) {
		refs = append(refs, r.(string))
	}
	return refs
}

// createdRef is the ref of the task a tasks_create answer made.
func createdRef(t *testing.T, answer map[string]any) string {
	t.Helper()
	ref, _ := structuredOf(t, answer)["task"].(map[string]any)["ref"].(string)
	return ref
}

// legacyCall calls name with args in session, of version, at the front
// door at addr, and returns the answer.
func legacyCall(t *testing.T, token, addr, version, session, name string, args map[string]any) map[string]any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	resp := legacyPostAs(t, token, addr, version, session, string(body))
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s in the %s session = %d %s, %v; want 200", name, version, resp.StatusCode, raw, err)
	}
	return answerOf(raw)
}

// deafProxy forwards connections to addr and drops whatever comes back,
// as a network that loses a front door's answers does; a connection
// closes once addr closes it. It returns its own address.
func deafProxy(t *testing.T, addr string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Error(err)
		return addr
	}
	go func() {
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		up, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer up.Close()
		go io.Copy(up, c)
		io.Copy(io.Discard, up)
	}()
	return ln.Addr().String()
}

// failover is a transport whose connections go to the first of addrs
// that takes them, as a load balancer's do once a replica is gone.
func failover(addrs ...string) *http.Transport {
	var d net.Dialer
	return &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var err error
		for _, addr := range addrs {
			var c net.Conn
			if c, err = d.DialContext(ctx, network, addr); err == nil {
				return c, nil
			}
		}
		return nil, err
	}}
}
