package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// protocolVersion is the MCP revision every request speaks: stateless, no
// handshake, the version and capabilities in _meta.
const protocolVersion = "2026-07-28"

// client posts JSON-RPC requests to one MCP endpoint.
type client struct {
	url   string
	token string
	// tokens, when set, are many tenants' tokens: each request carries one
	// of them, at random, instead of token.
	tokens []string
	http   *http.Client
}

func newClient(url, token string, conns int) *client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns + 8,
		MaxIdleConnsPerHost: conns + 8,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &client{url: url, token: token, http: &http.Client{Transport: tr}}
}

// body builds a tools/call (or another method's) request body.
func body(id int64, method, tool string, args any, progressToken string) ([]byte, error) {
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocolVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	if progressToken != "" {
		meta["progressToken"] = progressToken
	}
	params := map[string]any{"_meta": meta}
	if method == "tools/call" {
		params["name"] = tool
		params["arguments"] = args
	} else if args != nil {
		for k, v := range args.(map[string]any) {
			params[k] = v
		}
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

func (c *client) request(ctx context.Context, method, tool string, b []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", protocolVersion)
	h.Set("Mcp-Method", method)
	if tool != "" {
		h.Set("Mcp-Name", tool)
	}
	if token := c.pick(); token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// message is the part of a JSON-RPC message the load generator looks at.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Params *struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"` // of a notifications/progress
		// notifications/message
		Level string          `json:"level"`
		Data  json.RawMessage `json:"data"`
	} `json:"params"`
}

// check turns a response into an error when it is a JSON-RPC error
// (*rpcError) or a tool result with isError (*toolError).
func (m *message) check() error {
	switch {
	case m.Error != nil:
		return &rpcError{code: m.Error.Code, message: m.Error.Message}
	case m.Result == nil:
		return errors.New("no result")
	case m.Result.IsError:
		text := ""
		if len(m.Result.Content) > 0 {
			text = m.Result.Content[0].Text
		}
		return &toolError{text: text}
	}
	return nil
}

// rpcError is a JSON-RPC error response.
type rpcError struct {
	code    int
	message string
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.code, e.message) }

// toolError is a tool result with isError.
type toolError struct{ text string }

func (e *toolError) Error() string { return "tool error: " + e.text }

// call makes one request and returns its response, read from a JSON body or
// from the SSE stream's last message with an id.
func (c *client) call(ctx context.Context, method, tool string, b []byte) error {
	m, err := c.exchange(ctx, method, tool, b)
	if err != nil {
		return err
	}
	return m.check()
}

// httpError is an answer other than HTTP 200.
type httpError struct {
	status     int
	retryAfter string // the Retry-After header, if any
	body       string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

// readHTTPError reads the start of resp's body into an *httpError.
func readHTTPError(resp *http.Response) *httpError {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &httpError{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: strings.TrimSpace(string(msg))}
}

// exchange makes one request and returns the response, read from a JSON
// body or from the SSE stream's last message with an id; a status other
// than 200 is an *httpError.
func (c *client) exchange(ctx context.Context, method, tool string, b []byte) (message, error) {
	var m message
	req, err := c.request(ctx, method, tool, b)
	if err != nil {
		return m, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return m, readHTTPError(resp)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		err = readSSE(resp.Body, func(data []byte) (bool, error) {
			m = message{}
			if err := json.Unmarshal(data, &m); err != nil {
				return false, err
			}
			return len(m.ID) > 0 && m.Method == "", nil
		})
		return m, err
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("decode response: %w", err)
	}
	return m, nil
}

// readSSE hands each event's data to fn until fn says it is done or the
// stream ends.
func readSSE(r io.Reader, fn func(data []byte) (done bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) == 0 {
				continue
			}
			done, err := fn(data)
			data = data[:0]
			if err != nil || done {
				return err
			}
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// pick is the token of the next request.
func (c *client) pick() string {
	if len(c.tokens) > 0 {
		return c.tokens[rand.IntN(len(c.tokens))]
	}
	return c.token
}

func ref(n int) string { return "T-" + strconv.Itoa(n) }
