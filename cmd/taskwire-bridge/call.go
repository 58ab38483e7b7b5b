package main

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// call is one request of the client, from its line on standard input to
// its reply on standard output. It owes exactly one reply, unless the
// client cancels it: then nothing more is written for it.
type call struct {
	b      *bridge
	msg    *message
	key    string // idKey of its id
	era    era
	ctx    context.Context
	hangUp context.CancelFunc // closes the HTTP stream

	mu        sync.Mutex
	cancelled bool // the client cancelled it
	answered  bool // its reply went out
}

// run posts the request and relays what comes back: a JSON body, or an
// SSE stream whose progress, log messages and server requests are written
// as they arrive, ending with the response.
func (c *call) run() {
	defer c.hangUp()
	u := c.b.up
	resp, err := u.post(c.ctx, c.msg, c.era)
	if err != nil {
		if c.ctx.Err() == nil {
			c.fail(unreachable(u.url, err))
		}
		return
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		c.fail(refusedToken(u.url, refusalReason(resp)))
	case resp.StatusCode >= 300:
		c.relayFailure(resp)
	case isEventStream(resp.Header):
		err := readEvents(resp.Body, func(data []byte) bool { return c.relay(resp, data) })
		c.finish(err)
	default:
		body, err := io.ReadAll(resp.Body)
		if err == nil && len(body) > 0 {
			c.relay(resp, body)
		}
		c.finish(err)
	}
}

// relay writes one message the server sent about this call and reports
// whether more may follow: not after the response.
func (c *call) relay(resp *http.Response, data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &m) != nil {
		c.b.log.Warn("dropped a message from the server that is not a JSON-RPC object")
		return true
	}
	if m.Method != nil || idKey(m.ID) != c.key {
		c.emit(data, false) // progress, a log message, a server request
		return true
	}
	if c.msg.method == "initialize" && m.Result != nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Result, &r)
		c.b.up.setSession(resp.Header.Get(mcp.HeaderSessionID), r.ProtocolVersion)
	}
	if c.msg.method == "tools/list" && m.Result != nil {
		c.b.up.learnTools(m.Result)
	}
	c.emit(data, true)
	return false
}

// relayFailure passes on an HTTP error: its JSON-RPC body unchanged (with
// the request's id if the server could not read it), or, for a body that
// is not JSON-RPC, an error naming the status.
func (c *call) relayFailure(resp *http.Response) {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m["error"] == nil {
		c.fail(notJSONRPC(c.b.up.url, resp.StatusCode, body))
		return
	}
	if !validID(m["id"]) {
		m["id"] = c.msg.id
		body, _ = json.Marshal(m)
	}
	c.emit(body, true)
}

// finish owes the client its reply if the stream ended without one.
func (c *call) finish(err error) {
	if c.ctx.Err() != nil {
		return // cancelled, or the bridge gave up on it while exiting
	}
	c.fail(broken(c.b.up.url, err))
}

// fail replies with a bridge-made error, unless a reply already went out.
func (c *call) fail(e jsonrpc.Error) { c.emit(errorLine(c.msg.id, e), true) }

// emit writes a line of this call. After the client cancelled it, or after
// its reply, nothing is written. The reply also retires the call before
// it goes out, so the client may reuse the id as soon as it reads it.
func (c *call) emit(line []byte, reply bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelled || c.answered {
		return
	}
	if reply {
		c.answered = true
		c.b.retire(c)
	}
	c.b.out.write(line)
}

// cancel is the client's notifications/cancelled: from now on nothing is
// written for the call, and its stream is closed, which is the
// cancellation 2026-07-28 servers act on.
func (c *call) cancel() {
	c.mu.Lock()
	c.cancelled = true
	c.mu.Unlock()
	c.hangUp()
}

// giveUp ends a call the bridge stopped waiting for while exiting: the
// client still gets a reply, then the stream closes.
func (c *call) giveUp(e jsonrpc.Error) {
	c.fail(e)
	c.hangUp()
}

// errorDescription finds error_description in a Bearer challenge.
var errorDescription = regexp.MustCompile(`error_description="((?:[^"\\]|\\.)*)"`)

// refusalReason is why the server refused a token: the error_description
// of its WWW-Authenticate challenge (RFC 6750), written for people, or
// else the message of its JSON-RPC error.
func refusalReason(resp *http.Response) string {
	for _, ch := range resp.Header.Values("WWW-Authenticate") {
		if m := errorDescription.FindStringSubmatch(ch); m != nil && m[1] != "" {
			return clip(strings.ReplaceAll(m[1], `\`, ""), 200)
		}
	}
	return serverMessage(resp)
}

// serverMessage returns error.message of a JSON-RPC body, or "".
func serverMessage(resp *http.Response) string {
	var m struct {
		Error struct{ Message string } `json:"error"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m)
	return clip(m.Error.Message, 200)
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}
