package frontdoor

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// Session ids are sealed with a random nonce, so golden files write them as
// templates. In a request section,
//
//	{{session VERSION [TENANT/MEMBER] [expired]}}
//
// becomes a fresh id of a session of VERSION for TENANT/MEMBER (default
// acme/1, the member of token-all), or one that expired an hour ago. In a
// response section, an issued id is shown by what it opens to:
//
//	Mcp-Session-Id: {{session VERSION TENANT/MEMBER expires TIME}}
var sessionTemplate = regexp.MustCompile(`\{\{session ([^}]*)\}\}`)

// expandSessions replaces the session templates of a request section.
func expandSessions(t *testing.T, h *Handler, head string) string {
	return sessionTemplate.ReplaceAllStringFunc(head, func(m string) string {
		return mintSession(t, h, strings.Fields(sessionTemplate.FindStringSubmatch(m)[1]))
	})
}

// mintSession seals a session as a template's fields describe it.
func mintSession(t *testing.T, h *Handler, fields []string) string {
	t.Helper()
	c := identity.Caller{Tenant: "acme", Member: 1}
	clock := h.sessions.now
	for _, f := range fields[1:] {
		tenant, member, ok := strings.Cut(f, "/")
		switch n, err := strconv.Atoi(member); {
		case f == "expired":
			clock = func() time.Time { return testNow().Add(-sessionLifetime - time.Hour) }
		case ok && err == nil:
			c = identity.Caller{Tenant: tenant, Member: n}
		default:
			t.Fatalf("bad session template field %q", f)
		}
	}
	s := &sessions{box: h.sessions.box, now: clock}
	id, err := s.issue(c, fields[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// maskSessions replaces an issued session id in a response section by
// what it opens to.
func maskSessions(t *testing.T, h *Handler, head string) string {
	t.Helper()
	lines := strings.Split(head, "\n")
	for i, l := range lines {
		id, ok := strings.CutPrefix(l, mcp.HeaderSessionID+": ")
		if !ok {
			continue
		}
		if strings.ContainsFunc(id, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
			t.Errorf("session id %q has characters other than visible ASCII", id)
		}
		ses, err := h.sessions.open(id)
		if err != nil {
			t.Fatalf("issued session id does not open: %v", err)
		}
		lines[i] = mcp.HeaderSessionID + ": {{session " + ses.Version + " " + ses.Tenant + "/" + strconv.Itoa(ses.Member) +
			" expires " + time.Unix(ses.Expires, 0).UTC().Format(time.RFC3339) + "}}"
	}
	return strings.Join(lines, "\n")
}

// goldenVersion is the revision whose schema the answer to req must fit:
// 2026-07-28 for a modern message; for a legacy one the version
// initialize agreed, else the session's, else the newest legacy version.
func goldenVersion(h *Handler, req *http.Request, body string, answer []byte) string {
	msg, _ := jsonrpc.Decode([]byte(body))
	if isModern(req.Header, msg) {
		return mcptest.Version
	}
	var init struct {
		Result struct{ ProtocolVersion string }
	}
	if msg.Method == "initialize" && json.Unmarshal(answer, &init) == nil && init.Result.ProtocolVersion != "" {
		return init.Result.ProtocolVersion
	}
	if ses, err := h.sessions.open(req.Header.Get(mcp.HeaderSessionID)); err == nil {
		return ses.Version
	}
	if v := req.Header.Get(mcp.HeaderProtocolVersion); slices.Contains(legacyVersions, v) {
		return v
	}
	return mcp.LatestLegacyVersion
}
