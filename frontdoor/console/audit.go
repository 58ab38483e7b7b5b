package console

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// auditPageSize is how many events one page of the audit log shows.
const auditPageSize = 50

// auditData is what the audit log page shows.
type auditData struct {
	Filters  auditFilters
	Members  []string // handles, for the member filter
	Outcomes []string
	Events   []*taskwirev1.AuditEvent
	Older    string // the next page's URL; "" on the last
	CSV      string // the export's URLs, with the same filters
	JSON     string
}

// auditFilters are the audit log's filters, from the page's query.
type auditFilters struct {
	Member, Tool, Outcome, Since, Until string
}

// datetimeLocal is how a datetime-local field sends a time (with seconds
// when the browser adds them).
var datetimeLocal = []string{"2006-01-02T15:04", "2006-01-02T15:04:05"}

func readAuditFilters(q url.Values) auditFilters {
	return auditFilters{
		Member: q.Get("member"), Tool: strings.TrimSpace(q.Get("tool")), Outcome: q.Get("outcome"),
		Since: q.Get("since"), Until: q.Get("until"),
	}
}

// request is the ListAudit request of f, or a sentence saying which time
// could not be read.
func (f auditFilters) request() (*taskwirev1.ListAuditRequest, string) {
	req := &taskwirev1.ListAuditRequest{Member: f.Member, Tool: f.Tool, Outcome: f.Outcome}
	var bad string
	req.Since, bad = utcTime("Since", f.Since)
	if bad != "" {
		return nil, bad
	}
	req.Until, bad = utcTime("Until", f.Until)
	if bad != "" {
		return nil, bad
	}
	return req, ""
}

// utcTime reads a datetime-local value as a time in UTC; nil when empty.
func utcTime(field, s string) (*timestamppb.Timestamp, string) {
	if s == "" {
		return nil, ""
	}
	for _, layout := range datetimeLocal {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return timestamppb.New(t), ""
		}
	}
	return nil, field + " is not a date and time like 2026-12-04T09:30: correct it or leave it empty."
}

// query is f as a page's query, with extra values set.
func (f auditFilters) query(extra ...string) string {
	q := url.Values{}
	for k, v := range map[string]string{"member": f.Member, "tool": f.Tool, "outcome": f.Outcome, "since": f.Since, "until": f.Until} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return "?" + q.Encode()
}

// auditPage shows the tenant's audit log, newest first, a page at a
// time, or exports it (?format=csv or json). Only owners and admins may
// read it: the worker refuses anyone else, in its words.
func (c *Console) auditPage(w http.ResponseWriter, r *http.Request, v *visit) {
	q := r.URL.Query()
	f := readAuditFilters(q)
	req, bad := f.request()
	if bad != "" {
		c.fail(w, r, v, http.StatusBadRequest, bad)
		return
	}
	switch q.Get("format") {
	case "":
	case "csv", "json":
		c.exportAudit(w, r, v, req, q.Get("format"))
		return
	default:
		c.fail(w, r, v, http.StatusBadRequest, "Export the audit log as format=csv or format=json.")
		return
	}
	req.Limit, req.Cursor = auditPageSize, q.Get("cursor")
	resp, err := c.audit.ListAudit(v.ctx(r), req)
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	kinds, err := c.memberKinds(v.ctx(r))
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	base := tenantPath(v.tenant()) + "audit"
	d := auditData{
		Filters: f, Members: slices.Sorted(maps.Keys(kinds)), Outcomes: []string{"ok", "refused", "error"},
		Events: resp.GetItems(), CSV: base + f.query("format", "csv"), JSON: base + f.query("format", "json"),
	}
	if next := resp.GetNextCursor(); next != "" {
		d.Older = base + f.query("cursor", next)
	}
	c.render(w, r, http.StatusOK, "audit", page{Title: "Audit log", Visit: v, Data: d})
}
