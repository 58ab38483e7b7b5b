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
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/node/nodetest"
)

// isoWire sends the isolation test's requests as a client would put them
// on the wire, and hands back the raw answers, so that every byte a
// caller gets can be searched for another tenant's words.
type isoWire struct {
	t        testing.TB
	endpoint string // the MCP endpoint
	admin    string // the public URL, where /admin/v1/ is served
	grpc     *grpc.ClientConn
	id       int // the last JSON-RPC id sent
}

func newIsoWire(t testing.TB, h *nodetest.Harness) *isoWire {
	t.Helper()
	base := h.Sys.Config().PublicURL
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &isoWire{t: t, endpoint: h.Sys.Endpoint, admin: base, grpc: conn}
}

// isoAnswer is what one request got back.
type isoAnswer struct {
	status   int    // the HTTP status
	grpcCode string // a gRPC call's failure: its code
	body     []byte // the JSON of the answer: a JSON-RPC response, an admin message, or for gRPC errors "code: message"
	all      []byte // everything the server sent, SSE events included, for the marker search
}

// isoCall is one MCP request: params may hold the placeholders of a probe
// until rendered.
type isoCall struct {
	id      int // the JSON-RPC id; 0: the next one
	method  string
	name    string // the Mcp-Name header, when the method needs one
	params  string // JSON object, without _meta
	caps    string // client capabilities, JSON; "" is {}
	legacy  bool   // 2025-11-25, in session
	session string // legacy: the Mcp-Session-Id
}

// mcp posts c with token and the session label label.
func (w *isoWire) mcp(token, label string, c isoCall) isoAnswer {
	w.t.Helper()
	id := c.id
	if id == 0 {
		w.id++
		id = w.id
	}
	var body string
	params := strings.TrimSuffix(strings.TrimSpace(c.params), "}")
	if c.legacy {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}}`, id, c.method, params)
	} else {
		caps := c.caps
		if caps == "" {
			caps = "{}"
		}
		sep := ","
		if strings.TrimSpace(params) == "{" {
			sep = ""
		}
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`,
			id, c.method, params, sep, caps)
	}
	req, err := http.NewRequest(http.MethodPost, w.endpoint, strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	h := req.Header
	h.Set("Authorization", "Bearer "+token)
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if label != "" {
		h.Set("Taskwire-Session-Label", label)
	}
	if c.legacy {
		h.Set("MCP-Protocol-Version", "2025-11-25")
		if c.session != "" {
			h.Set("Mcp-Session-Id", c.session)
		}
	} else {
		h.Set("MCP-Protocol-Version", "2026-07-28")
		h.Set("Mcp-Method", c.method)
		if c.name != "" {
			h.Set("Mcp-Name", c.name)
		}
	}
	return w.do(req)
}

// legacySession opens a 2025-11-25 session with token and returns its id.
func (w *isoWire) legacySession(token string) string {
	w.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, w.endpoint, strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"isolation","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		w.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		w.t.Fatalf("legacy initialize = %d, session %q", resp.StatusCode, id)
	}
	return id
}

// adminJSON posts body to the JSON method of the admin API.
func (w *isoWire) adminJSON(bearer, method, body string) isoAnswer {
	w.t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.admin+"/admin/v1/"+method, strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	return w.do(req)
}

// adminGRPC calls method of the admin API over gRPC with the request body
// (protojson) holds; its messages are found by name, so every method of
// the service can be called alike.
func (w *isoWire) adminGRPC(bearer, method, body string) isoAnswer {
	w.t.Helper()
	in, out := adminMessage(w.t, method, "Request"), adminMessage(w.t, method, "Response")
	if err := protojson.Unmarshal([]byte(body), in.Interface()); err != nil {
		w.t.Fatalf("%s request %s: %v", method, body, err)
	}
	full := "/" + adminv1.AdminService_ServiceDesc.ServiceName + "/" + method
	ctx, cancel := context.WithTimeout(nodetest.AsGRPC(bearer), 15*time.Second)
	defer cancel()
	if err := w.grpc.Invoke(ctx, full, in.Interface(), out.Interface()); err != nil {
		st := status.Convert(err)
		msg := fmt.Appendf(nil, "%s: %s", st.Code(), st.Message())
		return isoAnswer{status: http.StatusOK, grpcCode: st.Code().String(), body: msg, all: msg}
	}
	raw, err := protojson.Marshal(out.Interface())
	if err != nil {
		w.t.Fatal(err)
	}
	return isoAnswer{status: http.StatusOK, body: raw, all: raw}
}

// adminMessage returns a new message of the admin API: method's Request
// or Response.
func adminMessage(t testing.TB, method, suffix string) protoreflect.Message {
	t.Helper()
	name := protoreflect.FullName(adminv1.AdminService_ServiceDesc.ServiceName).Parent().Append(protoreflect.Name(method + suffix))
	mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
	if err != nil {
		t.Fatalf("admin message %s: %v", name, err)
	}
	return mt.New()
}

// do sends req and reads the whole answer; an SSE answer's body is its
// last event, the JSON-RPC response.
func (w *isoWire) do(req *http.Request) isoAnswer {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(req.Context(), 15*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		w.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		w.t.Fatalf("%s %s: reading the answer: %v", req.Method, req.URL, err)
	}
	a := isoAnswer{status: resp.StatusCode, body: raw, all: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		a.body = nil
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				a.body = []byte(strings.TrimSpace(data))
			}
		}
	}
	return a
}

// class sorts an answer for comparison: "ok", "input_required", or the
// failure it is (an HTTP status, a JSON-RPC error code, a tool error).
// Failures are compared word for word; successes only by class.
func (a isoAnswer) class() (class string, failed bool) {
	var m struct {
		Error  *struct{ Code int }
		Result *struct {
			IsError    bool   `json:"isError"`
			ResultType string `json:"resultType"`
		}
		Code string // the admin API's JSON error
	}
	json.Unmarshal(a.body, &m)
	switch {
	case a.grpcCode != "":
		return "gRPC " + a.grpcCode, true
	case a.status != http.StatusOK:
		return strings.TrimSpace(fmt.Sprintf("HTTP %d %s", a.status, m.Code)), true
	case m.Error != nil:
		return fmt.Sprintf("JSON-RPC error %d", m.Error.Code), true
	case m.Result != nil && m.Result.IsError:
		return "tool error (isError)", true
	case m.Result != nil && m.Result.ResultType == "input_required":
		return "input_required", false
	}
	return "ok", false
}

// requestState returns the requestState of an input_required result.
func (a isoAnswer) requestState() string {
	var m struct {
		Result struct {
			RequestState string `json:"requestState"`
		}
	}
	json.Unmarshal(a.body, &m)
	return m.Result.RequestState
}

// asProbe is the answer to a twin as the probe would read if naming the
// victim's identifiers changed nothing but their spelling: each absent
// identifier (distinctive by construction, unlike a handle such as
// "owner" or an id such as "1") is replaced where it stands as a word,
// in the case it came back in, by the foreign one it stood for.
func asProbe(body []byte, absent, foreign []string) string {
	s := string(body)
	for i := range absent {
		s = replaceWord(s, absent[i], foreign[i])
		s = replaceWord(s, strings.ToUpper(absent[i]), strings.ToUpper(foreign[i]))
	}
	return s
}

// replaceWord replaces old by new in s where old is not part of a longer
// run of letters and digits.
func replaceWord(s, old, new string) string {
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if (i > 0 && alnum(s[i-1])) || (end < len(s) && alnum(s[end])) {
			b.WriteString(s[:end])
		} else {
			b.WriteString(s[:i] + new)
		}
		s = s[end:]
	}
}
