package frontdoor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
)

var update = flag.Bool("update", false, "rewrite the response sections of testdata/*.txtar from what the handler sends")

// TestGolden replays each conversation in testdata/*.txtar against a
// handler over the golden backend. A file holds:
//
//	-- request --        the request line (METHOD target) and headers
//	-- request.body --   the body, sent without its final newline
//	-- response --       the status, then every response header
//	-- response.body --  the body as sent (an SSE stream shows each event)
//
// With -update the response sections are rewritten; review the diff.
// Every JSON-RPC message sent is also validated against the MCP schema of
// the revision the conversation speaks. Conversations of legacy sessions
// live in testdata/legacy; their session ids are written as templates
// (golden_session_test.go).
func TestGolden(t *testing.T) {
	files := goldenFiles(t)
	for _, file := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(file, "testdata/"), ".txtar")
		t.Run(name, func(t *testing.T) {
			runGolden(t, file)
		})
	}
}

// goldenFiles lists the conversations of both eras.
func goldenFiles(t testing.TB) []string {
	modern, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(modern) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	legacy, err := filepath.Glob("testdata/legacy/*.txtar")
	if err != nil || len(legacy) == 0 {
		t.Fatalf("no legacy golden files: %v", err)
	}
	tasks, err := filepath.Glob("testdata/tasks/*.txtar")
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no golden files of MCP tasks: %v", err)
	}
	return slices.Concat(modern, legacy, tasks)
}

func runGolden(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimSuffix(section(ar, "request.body"), "\n")
	h := newTestHandler(t, backendOf(file), nil)
	req := goldenRequest(t, expandSessions(t, h, section(ar, "request")), body)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)

	gotHead, gotBody := maskSessions(t, h, formatHead(rec)), formatBody(rec.Body.Bytes())
	if req.URL.Path == "/api/mcp" {
		validateSent(t, goldenVersion(h, req, body, rec.Body.Bytes()), rec, requestMethod(body))
	}
	checkGolden(t, file, ar, gotHead, gotBody)
}

// checkGolden compares a response's head and body with the file's
// "response" sections, or with -update writes them there.
func checkGolden(t *testing.T, file string, ar *txtar.Archive, gotHead, gotBody string) {
	t.Helper()
	if *update {
		setSection(ar, "response", gotHead)
		setSection(ar, "response.body", gotBody)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(section(ar, "response"), gotHead); diff != "" {
		t.Errorf("status and headers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(section(ar, "response.body"), gotBody); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// goldenRequest builds the request of a "request" section.
func goldenRequest(t *testing.T, head, body string) *http.Request {
	lines := strings.Split(strings.TrimSuffix(head, "\n"), "\n")
	method, target, ok := strings.Cut(lines[0], " ")
	if !ok {
		t.Fatalf("bad request line %q", lines[0])
	}
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "127.0.0.1:8080" // the test endpoint's, unless a Host line says otherwise
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("bad header line %q", l)
		}
		if http.CanonicalHeaderKey(k) == "Host" {
			req.Host = strings.TrimSpace(v)
			continue
		}
		req.Header.Add(k, strings.TrimSpace(v))
	}
	return req
}

// formatHead renders the status and every header, sorted.
func formatHead(rec *httptest.ResponseRecorder) string {
	res := rec.Result()
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", res.StatusCode)
	keys := make([]string, 0, len(res.Header))
	for k := range res.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range res.Header[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	return b.String()
}

// formatBody makes a body fit a txtar section, which ends with a newline.
func formatBody(body []byte) string {
	if len(body) == 0 || bytes.HasSuffix(body, []byte("\n")) {
		return string(body)
	}
	return string(body) + "\n"
}

// requestMethod returns the JSON-RPC method of a request body, if any.
func requestMethod(body string) string {
	var m struct{ Method string }
	_ = json.Unmarshal([]byte(body), &m)
	return m.Method
}

// validateSent checks every JSON-RPC message of a response against the
// schema of version: the body of a JSON response, each event of an SSE
// stream.
func validateSent(t *testing.T, version string, rec *httptest.ResponseRecorder, method string) {
	t.Helper()
	for _, msg := range sentMessages(t, rec.Header().Get("Content-Type"), rec.Body.Bytes()) {
		mcptest.ValidateServerMessageAt(t, version, msg, method)
	}
}

// sentMessages splits a response body into its JSON-RPC messages.
func sentMessages(t testing.TB, contentType string, body []byte) [][]byte {
	t.Helper()
	switch contentType {
	case "":
		if len(body) > 0 {
			t.Errorf("body without Content-Type: %q", body)
		}
		return nil
	case "application/json":
		return [][]byte{body}
	case "text/event-stream":
		return sseMessages(t, body)
	}
	t.Errorf("unexpected Content-Type %q", contentType)
	return nil
}

// sseMessages returns the data of each event, checking that every event
// is a "message" event with one data line.
func sseMessages(t testing.TB, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	var event []string
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			event = append(event, line)
			continue
		}
		if len(event) != 2 || event[0] != "event: message" || !strings.HasPrefix(event[1], "data: ") {
			t.Errorf("malformed SSE event %q", event)
		} else {
			out = append(out, []byte(strings.TrimPrefix(event[1], "data: ")))
		}
		event = nil
	}
	if len(event) > 0 {
		t.Errorf("unterminated SSE event %q", event)
	}
	return out
}

func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func setSection(ar *txtar.Archive, name, data string) {
	for i, f := range ar.Files {
		if f.Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

// TestGoldenCoversStatuses guards the golden set itself: each status the
// handler can send has at least one conversation.
func TestGoldenCoversStatuses(t *testing.T) {
	files := goldenFiles(t)
	seen := map[int]bool{}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		status, _, _ := strings.Cut(section(ar, "response"), "\n")
		n, _ := strconv.Atoi(status)
		seen[n] = true
	}
	for _, want := range []int{200, 202, 204, 400, 401, 403, 404, 405, 413, 415} {
		if !seen[want] {
			t.Errorf("no golden conversation answers %d", want)
		}
	}
}
