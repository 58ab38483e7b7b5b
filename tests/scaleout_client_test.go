package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The client of TestScaleOut speaks MCP 2026-07-28 over plain HTTP POST
// rather than through an SDK, so that it sees exactly what a deployment
// sends: the HTTP status, whether the body is JSON-RPC at all, and every
// event of a progress stream in order.

// outcome is how one call ended, as the client saw it.
type outcome int

const (
	// outcomeOK is a result without isError.
	outcomeOK outcome = iota
	// outcomeRetriable is a tool error (isError) or a JSON-RPC error, in a
	// JSON-RPC response of any HTTP status, whose text tells the client to
	// try again or says the board is temporarily unavailable: what a lost
	// worker may cost.
	outcomeRetriable
	// outcomeBad is anything else: another tool or JSON-RPC error (an
	// internal error among them), a result that is not complete, a body
	// that is not a JSON-RPC response (a bare 500 or 502 among them), a
	// stream that ended without its response, or a transport error. The
	// front doors never go away in TestScaleOut, so nothing excuses one,
	// not even during the kill.
	outcomeBad
)

// progressNote is one notifications/progress a call's stream carried.
type progressNote struct {
	token           string
	progress, total float64
}

// callResult is what one tools/call came back with.
type callResult struct {
	status     int
	outcome    outcome
	why        string         // what a failed call said
	structured map[string]any // structuredContent of a success
	progress   []progressNote
	start, end time.Time
}

// rpcMessage is a JSON-RPC message of a response, as far as the client
// reads it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProgressToken any     `json:"progressToken"`
		Progress      float64 `json:"progress"`
		Total         float64 `json:"total"`
	} `json:"params"`
	Result *struct {
		ResultType string           `json:"resultType"`
		IsError    bool             `json:"isError"`
		Content    []map[string]any `json:"content"`
		Structured map[string]any   `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// postToolCall POSTs a tools/call of tool with args to the front door at
// front (host:port), with progressToken in _meta when it is not empty, and
// reads the response to its end.
func postToolCall(hc *http.Client, front, token string, id int64, tool string, args map[string]any, progressToken string) callResult {
	start := time.Now()
	r := postTool(hc, front, token, id, tool, args, progressToken)
	r.start, r.end = start, time.Now()
	return r
}

// postTool is postToolCall without the clock.
func postTool(hc *http.Client, front, token string, id int64, tool string, args map[string]any, progressToken string) callResult {
	var r callResult
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	if progressToken != "" {
		meta["progressToken"] = progressToken
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args, "_meta": meta}})
	if err != nil {
		return r.bad("marshal: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+front+"/api/mcp", bytes.NewReader(body))
	if err != nil {
		return r.bad("request: %v", err)
	}
	for k, v := range map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": tool} {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return r.bad("transport: %v", err)
	}
	defer resp.Body.Close()
	r.status = resp.StatusCode
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return r.readStream(resp.Body)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return r.bad("transport: reading the body: %v", err)
	}
	var m rpcMessage
	if err := json.Unmarshal(raw, &m); err != nil || (m.Result == nil && m.Error == nil) {
		return r.bad("HTTP %d without a JSON-RPC response: %.200q", resp.StatusCode, raw)
	}
	return r.final(&m)
}

// readStream reads an SSE response: progress notifications, then the
// response, which must come.
func (r callResult) readStream(body io.Reader) callResult {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data.WriteString(strings.TrimPrefix(v, " "))
			continue
		}
		if line != "" || data.Len() == 0 {
			continue // event:, id:, comments, or a blank line between events
		}
		var m rpcMessage
		if err := json.Unmarshal([]byte(data.String()), &m); err != nil {
			return r.bad("SSE event that is not JSON-RPC: %.200q", data.String())
		}
		data.Reset()
		switch {
		case m.Method == "notifications/progress":
			r.progress = append(r.progress, progressNote{token: fmt.Sprint(m.Params.ProgressToken), progress: m.Params.Progress, total: m.Params.Total})
		case m.Result != nil || m.Error != nil:
			return r.final(&m)
		}
	}
	return r.bad("transport: the SSE stream ended without the response (%v) after %d progress notifications", sc.Err(), len(r.progress))
}

// final classifies the response of a call.
func (r callResult) final(m *rpcMessage) callResult {
	if m.Error != nil {
		if retriableText(m.Error.Message) {
			return r.failed(outcomeRetriable, "JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
		}
		return r.bad("JSON-RPC error %d (HTTP %d): %s", m.Error.Code, r.status, m.Error.Message)
	}
	var text strings.Builder
	for _, c := range m.Result.Content {
		if s, ok := c["text"].(string); ok {
			text.WriteString(s)
		}
	}
	switch {
	case m.Result.ResultType != "complete":
		return r.bad("resultType %q, want complete: %s", m.Result.ResultType, text.String())
	case !m.Result.IsError:
		r.outcome, r.structured = outcomeOK, m.Result.Structured
		return r
	case retriableText(text.String()):
		return r.failed(outcomeRetriable, "isError: %s", text.String())
	}
	return r.bad("isError: %s", text.String())
}

// retriableText reports whether a failure's text tells the client that
// trying again will do: the one test of "a clear, retriable error".
func retriableText(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "try again") || strings.Contains(s, "temporarily unavailable")
}

func (r callResult) bad(format string, args ...any) callResult {
	return r.failed(outcomeBad, format, args...)
}

func (r callResult) failed(o outcome, format string, args ...any) callResult {
	r.outcome, r.why = o, fmt.Sprintf(format, args...)
	return r
}
