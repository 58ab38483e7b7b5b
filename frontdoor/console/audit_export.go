package console

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// maxExportEvents bounds an export: past it, the export says so at its
// end, and a narrower time range exports the rest.
const maxExportEvents = 10000

// exportPageSize is how many events each ListAudit call of an export reads.
const exportPageSize = 100

// auditWriter writes an export's events as they are read.
type auditWriter interface {
	begin()
	event(*taskwirev1.AuditEvent)
	// end closes the export; truncated: more events matched than
	// maxExportEvents; failed: why reading stopped early ("" when not).
	end(n int, truncated bool, failed string)
}

// exportAudit streams every event req matches, newest first, as an
// attachment. The first page is read before anything is sent, so a
// refusal is a page like any other; a failure later ends the file with a
// line saying the export is incomplete.
func (c *Console) exportAudit(w http.ResponseWriter, r *http.Request, v *visit, req *taskwirev1.ListAuditRequest, format string) {
	req.Limit = exportPageSize
	resp, err := c.audit.ListAudit(v.ctx(r), req)
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	h := w.Header()
	name := "taskwire-audit-" + v.tenant() + "-" + time.Now().UTC().Format("20060102T1504Z") + "." + format
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("Cache-Control", "no-store")
	var aw auditWriter
	if format == "csv" {
		h.Set("Content-Type", "text/csv; charset=utf-8")
		aw = &csvAudit{w: w, csv: csv.NewWriter(w)}
	} else {
		h.Set("Content-Type", "application/json")
		aw = &jsonAudit{w: w}
	}
	aw.begin()
	n := 0
	for {
		for _, e := range resp.GetItems() {
			if n == maxExportEvents {
				aw.end(n, true, "")
				return
			}
			aw.event(e)
			n++
		}
		if req.Cursor = resp.GetNextCursor(); req.Cursor == "" {
			aw.end(n, false, "")
			return
		}
		if resp, err = c.audit.ListAudit(v.ctx(r), req); err != nil {
			c.log.WarnContext(r.Context(), "console: audit export stopped", "err", err)
			aw.end(n, false, status.Convert(err).Message())
			return
		}
	}
}

// csvAudit writes the audit log as CSV, one row per event under a header
// row.
type csvAudit struct {
	w   io.Writer
	csv *csv.Writer
}

var csvAuditHeader = []string{"occurred_at", "member", "kind", "sponsor", "operator", "tool", "method",
	"targets", "outcome", "error", "duration_ms", "token_id", "session_label", "trace_id"}

func (a *csvAudit) begin() { a.csv.Write(csvAuditHeader) }

func (a *csvAudit) event(e *taskwirev1.AuditEvent) {
	row := []string{
		e.GetOccurredAt().AsTime().UTC().Format(time.RFC3339Nano), e.GetMember(), memberKindOf(e),
		e.GetSponsor(), strconv.FormatBool(e.GetOperator()), e.GetTool(), e.GetMethod(),
		strings.Join(e.GetTargets(), " "), e.GetOutcome(), e.GetError(), strconv.Itoa(int(e.GetDurationMs())),
		e.GetTokenId(), e.GetSessionLabel(), e.GetTraceId(),
	}
	for i := range row {
		row[i] = spreadsheetSafe(row[i])
	}
	a.csv.Write(row)
}

func (a *csvAudit) end(n int, truncated bool, failed string) {
	a.csv.Flush()
	switch {
	case truncated:
		fmt.Fprintf(a.w, "# Only the newest %d events are in this file; narrow the time range (since and until) to export the rest.\n", n)
	case failed != "":
		fmt.Fprintf(a.w, "# The export stopped after %d events, so this file is incomplete: %s Export again.\n", n, oneLine(failed))
	}
}

// spreadsheetSafe keeps a spreadsheet from reading a cell as a formula:
// text an assistant or a client wrote (an error, a session label) that
// starts with = + - @ or a tab or carriage return is prefixed with a
// quote, as OWASP's advice on CSV injection says.
func spreadsheetSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// memberKindOf is who made the call: "person", "assistant" or "operator".
func memberKindOf(e *taskwirev1.AuditEvent) string {
	if e.GetOperator() {
		return "operator"
	}
	return memberKind(e.GetKind())
}

// jsonAudit writes the audit log as a JSON object: "events", an array of
// the events as the audit_list tool returns them (protojson, field names
// as in the proto), and "truncated", with "error" when reading stopped
// early.
type jsonAudit struct {
	w     io.Writer
	wrote bool
}

var auditJSON = protojson.MarshalOptions{UseProtoNames: true}

func (a *jsonAudit) begin() { io.WriteString(a.w, `{"events":[`) }

func (a *jsonAudit) event(e *taskwirev1.AuditEvent) {
	b, err := auditJSON.Marshal(e)
	if err != nil {
		return // an AuditEvent always marshals
	}
	if a.wrote {
		io.WriteString(a.w, ",\n")
	}
	a.wrote = true
	a.w.Write(b)
}

func (a *jsonAudit) end(n int, truncated bool, failed string) {
	fmt.Fprintf(a.w, "\n],\"count\":%d,\"truncated\":%t", n, truncated)
	if truncated {
		fmt.Fprintf(a.w, `,"note":"Only the newest %d events are here; narrow the time range (since and until) to export the rest."`, n)
	}
	if failed != "" {
		msg, _ := json.Marshal("The export stopped early, so it is incomplete: " + failed + " Export again.")
		fmt.Fprintf(a.w, `,"error":%s`, msg)
	}
	io.WriteString(a.w, "}\n")
}
