package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"sync"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// era is how one message travels: modern (2026-07-28, stateless, headers
// mirroring the body) or legacy (a session begun by initialize).
type era struct {
	modern  bool
	version string // MCP-Protocol-Version; empty: none (legacy initialize)
	session string // Mcp-Session-Id of a legacy message
}

// upstream is the Taskwire endpoint. The state it keeps is the legacy
// session a client opened with initialize, because older revisions
// require it on every later request, and the x-mcp-header annotations of
// the tools listed, because modern calls must mirror those arguments in
// headers; modern requests carry all else they need.
type upstream struct {
	url    string
	token  string
	agent  string
	client *http.Client

	mu      sync.Mutex
	session string // Mcp-Session-Id the server set on initialize
	version string // the version it answered
	// params are the x-mcp-header annotations of each tool, by name, as
	// the last tools/list the client made through the bridge showed them.
	params map[string][]mcp.ParamHeader
}

// eraOf decides a message's era from the message itself, as a stateless
// proxy must: modern _meta or server/discover is 2026-07-28; initialize
// starts a legacy session; anything else rides the legacy session if the
// client opened one, and otherwise goes as it is, for the server to judge.
func (u *upstream) eraOf(m *message) era {
	if v, ok := m.metaVersion(); ok {
		return era{modern: true, version: v}
	}
	if m.method == "server/discover" {
		return era{modern: true, version: mcp.LatestVersion}
	}
	if m.method == "initialize" {
		return era{}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return era{version: u.version, session: u.session}
}

// setSession keeps the session an initialize opened, for the messages
// that follow.
func (u *upstream) setSession(id, version string) {
	u.mu.Lock()
	u.session, u.version = id, version
	u.mu.Unlock()
}

// post sends one message with the headers of its era. Closing ctx closes
// the request's stream, which is how 2026-07-28 cancels a call.
func (u *upstream) post(ctx context.Context, m *message, e era) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.url, bytes.NewReader(m.line))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Authorization", "Bearer "+u.token)
	h.Set("User-Agent", u.agent)
	if e.version != "" {
		h.Set(mcp.HeaderProtocolVersion, e.version)
	}
	if e.session != "" {
		h.Set(mcp.HeaderSessionID, e.session)
	}
	if e.modern && m.method != "" {
		h.Set(mcp.HeaderMethod, headerValue(m.method))
		if name, ok := nameOf(m); ok {
			h.Set(mcp.HeaderName, headerValue(name))
		}
		if m.method == "tools/call" {
			u.setParamHeaders(h, m)
		}
	}
	return u.client.Do(req)
}

// endSession tells the server a legacy client is gone (DELETE), so its
// session id stops working at once instead of when it expires.
func (u *upstream) endSession(ctx context.Context) {
	u.mu.Lock()
	id, version := u.session, u.version
	u.mu.Unlock()
	if id == "" {
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+u.token)
	req.Header.Set("User-Agent", u.agent)
	req.Header.Set(mcp.HeaderSessionID, id)
	req.Header.Set(mcp.HeaderProtocolVersion, version)
	if resp, err := u.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// nameOf returns what Mcp-Name mirrors for the methods that need it.
func nameOf(m *message) (string, bool) {
	switch m.method {
	case "tools/call", "prompts/get":
		return str(m.params, "name")
	case "resources/read":
		return str(m.params, "uri")
	}
	return "", false
}

// headerValue returns v as it may travel in a header: literally when it
// is plain visible ASCII, else in the =?base64?…?= form the transport
// defines (also for a literal that would read as that form).
func headerValue(v string) string {
	plain := len(v) > 0 && v[0] != ' ' && v[len(v)-1] != ' '
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain && !(len(v) >= 11 && v[:9] == "=?base64?" && v[len(v)-2:] == "?=") {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// unwrapURLError drops the "Post <url>:" prefix of a client error: the
// messages built from it name the URL once already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
