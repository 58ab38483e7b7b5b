package frontdoor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// goldenLimits are the limits of the rate-limit conversations: one call
// every 2 s per token, one a second per tenant, for each operation. The
// clock stands still, so one call spends a budget.
var goldenLimits = RateLimits{
	Token:  RateLimit{PerSecond: 0.5, Burst: 1},
	Tenant: RateLimit{PerSecond: 1, Burst: 1},
}

// TestRateLimitGolden replays the conversations of testdata/ratelimit
// (both eras) as TestGolden does, over a handler with goldenLimits. Each
// file has, besides TestGolden's sections, a "before" and "before.body":
// a request sent first, whose answer is not recorded and must not be 429,
// so that the recorded one meets the budget it left. With -update the
// response sections are rewritten.
func TestRateLimitGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/ratelimit/*.txtar")
	legacy, _ := filepath.Glob("testdata/ratelimit/legacy/*.txtar")
	if files = append(files, legacy...); err != nil || len(files) == 0 || len(legacy) == 0 {
		t.Fatalf("no rate-limit conversations of both eras: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(file, "testdata/ratelimit/"), ".txtar")
		t.Run(name, func(t *testing.T) { runRateLimitGolden(t, file) })
	}
}

func runRateLimitGolden(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, nil, nil)
	limits := goldenLimits
	limits.Now = testNow
	if h.cfg.RateLimiter, err = NewRateLimiter(limits); err != nil {
		t.Fatal(err)
	}
	send := func(head, body string) (*http.Request, *httptest.ResponseRecorder) {
		body = strings.TrimSuffix(body, "\n")
		req := goldenRequest(t, expandSessions(t, h, head), body)
		return req, serve(h, req)
	}
	if _, rec := send(section(ar, "before"), section(ar, "before.body")); rec.Code == http.StatusTooManyRequests {
		t.Fatalf("the request before was rate limited: %s", rec.Body)
	}
	body := section(ar, "request.body")
	req, rec := send(section(ar, "request"), body)
	gotHead, gotBody := maskSessions(t, h, formatHead(rec)), formatBody(rec.Body.Bytes())
	validateSent(t, goldenVersion(h, req, strings.TrimSuffix(body, "\n"), rec.Body.Bytes()), rec, requestMethod(body))
	if rec.Code == http.StatusTooManyRequests {
		checkRateLimited(t, rec)
	}
	checkGolden(t, file, ar, gotHead, gotBody)
}

// checkRateLimited checks what every 429 carries, whatever the golden
// file says: Retry-After in whole seconds, at least 1, that agrees with
// data.retryAfterMs, and data naming the limit and the operation.
func checkRateLimited(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	secs, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Errorf("Retry-After = %q, want whole seconds, at least 1", rec.Header().Get("Retry-After"))
	}
	var msg struct {
		Error struct {
			Code int
			Data struct {
				RetryAfterMs int64
				Limit, Key   string
			}
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &msg); err != nil {
		t.Fatalf("429 body: %v", err)
	}
	e := msg.Error
	if e.Code != jsonrpc.RateLimited || (e.Data.Limit != "token" && e.Data.Limit != "tenant") || e.Data.Key == "" {
		t.Errorf("429 error = %+v, want code %d and data naming the limit and key", e, jsonrpc.RateLimited)
	}
	if ms := e.Data.RetryAfterMs; ms < 1 || (ms+999)/1000 != int64(secs) {
		t.Errorf("retryAfterMs %d disagrees with Retry-After %d", ms, secs)
	}
}
