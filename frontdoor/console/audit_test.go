package console

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAuditPageFilters(t *testing.T) {
	w := newAdminWorker(owner)
	w.events = 60
	e := w.env(t)
	session, _ := e.signIn()
	resp := e.do("GET", "/t/acme/audit?member=bot&outcome=refused&since=2026-12-04T09:30&until=2026-12-04T10:00:30", nil, session)
	page := resp.Body.String()
	if resp.Code != http.StatusOK || strings.Count(page, `<tr data-member="bot" data-outcome="refused">`) != auditPageSize {
		t.Fatalf("GET audit = %d, want 200 with %d rows:\n%s", resp.Code, auditPageSize, page)
	}
	req := w.audits[0]
	if req.GetMember() != "bot" || req.GetOutcome() != "refused" ||
		!req.GetSince().AsTime().Equal(time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC)) ||
		!req.GetUntil().AsTime().Equal(time.Date(2026, 12, 4, 10, 0, 30, 0, time.UTC)) {
		t.Errorf("ListAudit request = %v, want bot, refused, since 09:30 UTC, until 10:00:30 UTC", req)
	}
	for _, want := range []string{
		`<a id="older" href="/t/acme/audit?cursor=50&amp;member=bot&amp;outcome=refused&amp;since=2026-12-04T09%3A30&amp;until=2026-12-04T10%3A00%3A30">`,
		`<option value="bot" selected>`, `<option value="refused" selected>`, `href="/t/acme/audit?format=csv&amp;member=bot`,
		`=HYPERLINK(0)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the audit page has no %s:\n%s", want, page)
		}
	}
	if resp := e.do("GET", "/t/acme/audit?since=yesterday", nil, session); resp.Code != http.StatusBadRequest ||
		!strings.Contains(resp.Body.String(), "Since is not a date and time") {
		t.Errorf("GET audit since yesterday = %d, want 400 naming the field:\n%s", resp.Code, resp.Body)
	}
}

func TestAuditRefusedToViewer(t *testing.T) {
	e := newAdminWorker(viewer).env(t)
	session, _ := e.signIn()
	for _, path := range []string{"/t/acme/audit", "/t/acme/audit?format=csv"} {
		resp := e.do("GET", path, nil, session)
		if resp.Code != http.StatusForbidden || !strings.Contains(resp.Body.String(), "Your role (viewer) does not allow this. Only owners and admins may list the audit log") {
			t.Errorf("GET %s as a viewer = %d, want 403 in the service's words:\n%s", path, resp.Code, resp.Body)
		}
	}
}

func TestAuditExportCSV(t *testing.T) {
	w := newAdminWorker(owner)
	w.events = maxExportEvents + 1
	e := w.env(t)
	session, _ := e.signIn()
	resp := e.do("GET", "/t/acme/audit?format=csv&member=bot", nil, session)
	if resp.Code != http.StatusOK || !strings.HasPrefix(resp.Header().Get("Content-Disposition"), `attachment; filename=taskwire-audit-acme-`) ||
		resp.Header().Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("CSV export = %d %v, want a CSV attachment", resp.Code, resp.Header())
	}
	body := resp.Body.String()
	r := csv.NewReader(strings.NewReader(body))
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil || len(rows) != maxExportEvents+1 {
		t.Fatalf("CSV export has %d rows (%v), want a header and %d events", len(rows), err, maxExportEvents)
	}
	if got := rows[1]; got[0] != "2026-12-04T12:00:00Z" || got[1] != "bot" || got[2] != "assistant" || got[9] != "'=HYPERLINK(0)" {
		t.Errorf("CSV row 1 = %q, want bot's event with its formula quoted", got)
	}
	if !strings.HasSuffix(body, "# Only the newest 10000 events are in this file; narrow the time range (since and until) to export the rest.\n") {
		t.Errorf("the capped CSV export does not end saying so: …%s", body[len(body)-200:])
	}
	if n := len(w.audits); n != maxExportEvents/exportPageSize+1 {
		t.Errorf("the export made %d ListAudit calls, want %d", n, maxExportEvents/exportPageSize+1)
	}
}

func TestAuditExportJSON(t *testing.T) {
	w := newAdminWorker(owner)
	w.events = 3
	e := w.env(t)
	session, _ := e.signIn()
	resp := e.do("GET", "/t/acme/audit?format=json", nil, session)
	var doc struct {
		Events    []map[string]any `json:"events"`
		Count     int              `json:"count"`
		Truncated bool             `json:"truncated"`
	}
	if err := json.Unmarshal(resp.Body.Bytes(), &doc); err != nil || resp.Code != http.StatusOK {
		t.Fatalf("JSON export = %d, %v:\n%s", resp.Code, err, resp.Body)
	}
	if len(doc.Events) != 3 || doc.Count != 3 || doc.Truncated || doc.Events[0]["occurred_at"] != "2026-12-04T12:00:00Z" || doc.Events[2]["error"] != "=HYPERLINK(2)" {
		t.Errorf("JSON export = %+v, want 3 events as the tool returns them, not truncated", doc)
	}
}

// TestAuditExportFails: a page that cannot be read after the download
// began ends the file with a line saying it is incomplete.
func TestAuditExportFails(t *testing.T) {
	w := newAdminWorker(owner)
	w.events, w.failFrom = 250, exportPageSize
	e := w.env(t)
	session, _ := e.signIn()
	csvBody := e.do("GET", "/t/acme/audit?format=csv", nil, session).Body.String()
	if !strings.HasSuffix(csvBody, "# The export stopped after 100 events, so this file is incomplete: The audit log cannot be read now. Export again.\n") {
		t.Errorf("the failed CSV export ends …%s", csvBody[len(csvBody)-150:])
	}
	var doc struct {
		Count int    `json:"count"`
		Error string `json:"error"`
	}
	resp := e.do("GET", "/t/acme/audit?format=json", nil, session)
	if err := json.Unmarshal(resp.Body.Bytes(), &doc); err != nil || doc.Count != 100 || !strings.Contains(doc.Error, "incomplete") {
		t.Errorf("the failed JSON export = %+v, %v; want 100 events and an error saying it is incomplete", doc, err)
	}
}

func TestSpreadsheetSafe(t *testing.T) {
	for in, want := range map[string]string{
		"=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx",
		"ok": "ok", "": "", "a=b": "a=b",
	} {
		if got := spreadsheetSafe(in); got != want {
			t.Errorf("spreadsheetSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
