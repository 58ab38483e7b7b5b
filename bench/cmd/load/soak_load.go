package main

import (
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
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// callTimeout is how long the soak waits for any answer: a call without
// one by then counts as hung.
const callTimeout = 30 * time.Second

// Error kinds, as the soak's tables name them.
const (
	kindUnavailable = "unavailable (isError)"
	kindToolError   = "other isError"
	kindHung        = "no answer in 30 s"
	kindTransport   = "transport"
	kindListenEnded = "listen stream ended"
	kindOther       = "other"
)

// classify names the kind of a call's failure; "" is success.
func classify(err error) string {
	var te *toolError
	var re *rpcError
	var he *httpError
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &te):
		if strings.Contains(te.text, "temporarily unavailable") {
			return kindUnavailable
		}
		return kindToolError
	case errors.As(err, &re):
		return fmt.Sprintf("JSON-RPC %d", re.code)
	case errors.As(err, &he):
		return fmt.Sprintf("HTTP %d", he.status)
	case errors.Is(err, context.DeadlineExceeded):
		return kindHung
	case errors.As(err, &ne), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return kindTransport
	}
	return kindOther
}

// retryable says whether a write that failed so may be sent again with the
// same idempotency key: the answer says the board was unavailable, or none
// came, or the server failed.
func retryable(err error) bool {
	var he *httpError
	switch k := classify(err); {
	case k == kindUnavailable, k == kindTransport, k == kindHung, k == kindOther, k == "JSON-RPC -32603":
		return true
	case errors.As(err, &he):
		return he.status >= 500 || he.status == http.StatusTooManyRequests
	}
	return false
}

// backoff is how long to wait before retry n (0, 1, …) after err: the
// server's Retry-After when it gave one, else 200 ms doubling up to 2 s.
func backoff(err error, n int) time.Duration {
	var he *httpError
	if errors.As(err, &he) && he.retryAfter != "" {
		if s, e := strconv.Atoi(he.retryAfter); e == nil && s >= 0 {
			return time.Duration(s) * time.Second
		}
	}
	return min(200*time.Millisecond<<min(n, 4), 2*time.Second)
}

// outcome is one call the soak made.
type outcome struct {
	at   time.Duration // when it ended, since the load started
	op   string        // the tool or method
	lat  time.Duration
	kind string // "" when it succeeded
	// short marks a tasks_import that succeeded with fewer progress
	// notifications than it should have brought.
	short bool
}

// kindCount counts one kind of failure of one op.
type kindCount struct {
	Kind  string `json:"kind"`
	Op    string `json:"op"`
	Count int    `json:"count"`
	First string `json:"first"`
	// FirstAt and LastAt are when the first and the last ended.
	FirstAt time.Duration `json:"first_at_ns"`
	LastAt  time.Duration `json:"last_at_ns"`
}

// recorder keeps every call's outcome and the failures by kind.
type recorder struct {
	start time.Time
	mu    sync.Mutex
	outs  []outcome
	kinds map[[2]string]*kindCount
}

func newRecorder() *recorder {
	return &recorder{start: time.Now(), kinds: map[[2]string]*kindCount{}}
}

// add records a call of op that began at began and ended now with err.
func (r *recorder) add(op string, began time.Time, err error) outcome {
	now := time.Now()
	o := outcome{at: now.Sub(r.start), op: op, lat: now.Sub(began), kind: classify(err)}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outs = append(r.outs, o)
	if o.kind != "" {
		r.fail(o.at, op, o.kind, err.Error())
	}
	return o
}

// failure records a failure that is no call's answer (a stream ending).
func (r *recorder) failure(op, kind, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := time.Since(r.start)
	r.outs = append(r.outs, outcome{at: at, op: op, kind: kind})
	r.fail(at, op, kind, msg)
}

func (r *recorder) fail(at time.Duration, op, kind, msg string) {
	k := r.kinds[[2]string{kind, op}]
	if k == nil {
		if len(msg) > 160 {
			msg = msg[:160] + "…"
		}
		k = &kindCount{Kind: kind, Op: op, First: msg, FirstAt: at}
		r.kinds[[2]string{kind, op}] = k
	}
	k.Count++
	k.LastAt = at
}

func (r *recorder) markShort(o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.outs) - 1; i >= 0; i-- {
		if r.outs[i] == o {
			r.outs[i].short = true
			return
		}
	}
}

// soakLoad is the mixed load and what it saw.
type soakLoad struct {
	cfg    *soakConfig
	rec    *recorder
	calls  []*client // one per front door
	listen []*client // the same, for listen streams
	urls   []string  // the front doors' base URLs
	secret string    // the operator secret
	tenant string
	nonce  string
	seq    atomic.Int64

	mu   sync.Mutex
	refs []string // tasks created and acknowledged, for tasks_get
	// acked maps the title of each acknowledged create to the ref it was
	// answered with.
	acked map[string]string
	st    soakStats
}

// soakStats are the counts the checks are made of.
type soakStats struct {
	Creates        int `json:"creates"`
	Acked          int `json:"acked"`
	AckedAfterRtry int `json:"acked_after_retry"`
	Retries        int `json:"retries"`
	GivenUp        int `json:"given_up"`
	Refused        int `json:"refused"`

	Imports         int    `json:"imports"`
	ImportsFailed   int    `json:"imports_failed"`
	Notifications   int    `json:"notifications"`
	Expected        int    `json:"notifications_expected"`
	ShortImports    int    `json:"imports_short_of_progress"`
	SilentShort     int    `json:"imports_short_of_progress_unwarned"`
	Warnings        int    `json:"progress_warnings"`
	FirstWarning    string `json:"first_warning,omitempty"`
	ListenOpened    int    `json:"listen_opened"`
	ListenEnded     int    `json:"listen_ended"`
	ListenNotified  int    `json:"listen_notifications"`
	Revocations     int    `json:"revocations"`
	RevokedLate     int    `json:"revoked_tokens_accepted_after_bound"`
	RevokeUnchecked int    `json:"revocations_unchecked"`
	NewTokenRefused int    `json:"new_tokens_refused"`
	revokeLat       []time.Duration
}

func newSoakLoad(c *soakConfig, urls []string, secret, tenant, token string) *soakLoad {
	l := &soakLoad{cfg: c, rec: newRecorder(), urls: urls, secret: secret, tenant: tenant,
		nonce: strconv.FormatInt(time.Now().UnixNano()%1e9, 36), acked: map[string]string{}}
	for _, u := range urls {
		l.calls = append(l.calls, newClient(u+"/api/mcp", token, c.readers+c.writers+4))
		lc := newClient(u+"/api/mcp", token, 0)
		lc.http.Transport.(*http.Transport).MaxIdleConnsPerHost = -1
		l.listen = append(l.listen, lc)
	}
	return l
}

// createPrefix starts the title of every task this run creates with
// tasks_create, so that the database can be asked for them.
func (l *soakLoad) createPrefix() string { return "soak " + l.nonce + " create " }

// run starts every actor and returns when ctx ends and each has finished
// its last call (a write's retries included).
func (l *soakLoad) run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range l.cfg.readers {
		wg.Go(func() { l.reader(ctx, i) })
	}
	for i := range l.cfg.writers {
		wg.Go(func() { l.writer(ctx, i) })
	}
	for i := range l.cfg.importers {
		wg.Go(func() { l.importer(ctx, i) })
	}
	for i := range l.cfg.streams {
		wg.Go(func() { l.listener(ctx, i) })
	}
	if l.cfg.revokeEvery > 0 {
		wg.Go(func() { l.revoker(ctx) })
	}
	wg.Wait()
}

// pause waits d or until ctx ends, saying whether to go on.
func pause(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// tool calls tool on front door fd and returns the answer, checked.
func (l *soakLoad) tool(cl *client, tool string, args map[string]any) (message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	b, _ := body(l.seq.Add(1), "tools/call", tool, args, "")
	m, err := cl.exchange(ctx, "tools/call", tool, b)
	if err == nil {
		err = m.check()
	}
	return m, err
}

// reader calls tasks_get (of a task created here), tasks_list and
// tasks_search in turn, through both front doors.
func (l *soakLoad) reader(ctx context.Context, i int) {
	for n := 0; ctx.Err() == nil; n++ {
		cl := l.calls[(i+n)%len(l.calls)]
		op, args := "tasks_list", map[string]any{"limit": 25}
		switch r := rand.IntN(20); {
		case r < 10:
			l.mu.Lock()
			if len(l.refs) > 0 {
				op, args = "tasks_get", map[string]any{"ref": l.refs[rand.IntN(len(l.refs))]}
			}
			l.mu.Unlock()
		case r < 13:
			// One of the words the titles are made of.
			op, args = "tasks_search", map[string]any{"query": words[rand.IntN(len(words))]}
		}
		began := time.Now()
		_, err := l.tool(cl, op, args)
		l.rec.add(op, began, err)
		if !pause(ctx, l.cfg.readPause) {
			return
		}
	}
}

// writer creates tasks, each with its own idempotency key and a title no
// other create has; an answer that says to retry (or none) is retried with
// the same key, on the other front door, until acknowledged or until
// giveUp has passed. A write started before ctx ended is finished.
func (l *soakLoad) writer(ctx context.Context, i int) {
	const giveUp = 60 * time.Second
	for n := 0; ctx.Err() == nil; n++ {
		id := l.seq.Add(1)
		title := fmt.Sprintf("%s%d: %s", l.createPrefix(), id, phrase(id, 0))
		args := map[string]any{"title": title, "kind": "chore", "allow_duplicate": true,
			"idempotency_key": fmt.Sprintf("soak-%s-%d", l.nonce, id)}
		first := time.Now()
		var ref string
		var err error
		attempt := 0
		for ; ; attempt++ {
			cl := l.calls[(i+n+attempt)%len(l.calls)]
			began := time.Now()
			var m message
			m, err = l.tool(cl, "tasks_create", args)
			l.rec.add("tasks_create", began, err)
			if err == nil {
				ref = createdRef(m)
				if ref == "" {
					err = errors.New("tasks_create answered without a task ref")
					l.rec.failure("tasks_create", kindOther, err.Error())
				}
				break
			}
			if !retryable(err) || time.Since(first) > giveUp {
				break
			}
			time.Sleep(backoff(err, attempt))
		}
		l.mu.Lock()
		l.st.Creates++
		l.st.Retries += attempt
		switch {
		case ref != "":
			l.st.Acked++
			if attempt > 0 {
				l.st.AckedAfterRtry++
			}
			l.acked[title] = ref
			l.refs = append(l.refs, ref)
		case retryable(err):
			l.st.GivenUp++
		default:
			l.st.Refused++
		}
		l.mu.Unlock()
		if !pause(ctx, l.cfg.writePause) {
			return
		}
	}
}

// createdRef is the ref in a tasks_create result.
func createdRef(m message) string {
	if m.Result == nil {
		return ""
	}
	var sc struct {
		Task struct {
			Ref string `json:"ref"`
		} `json:"task"`
	}
	if json.Unmarshal(m.Result.StructuredContent, &sc) != nil {
		return ""
	}
	return sc.Task.Ref
}

// importer calls tasks_import with a progressToken and counts the progress
// notifications each call brings.
func (l *soakLoad) importer(ctx context.Context, i int) {
	for n := 0; ctx.Err() == nil; n++ {
		l.importCall(l.calls[(i+n)%len(l.calls)])
		if !pause(ctx, l.cfg.importPause) {
			return
		}
	}
}

// importCall makes one tasks_import with a progressToken through cl and
// counts it.
func (l *soakLoad) importCall(cl *client) (importResult, error) {
	id := l.seq.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	began := time.Now()
	res, err := cl.importOnce(ctx, id, l.cfg.importTasks, fmt.Sprintf("soak %s import %d", l.nonce, id), importOpts{})
	o := l.rec.add("tasks_import", began, err)
	l.mu.Lock()
	l.st.Imports++
	if err != nil {
		l.st.ImportsFailed++
	} else {
		l.st.Notifications += res.notifications
		l.st.Expected += res.notifications + res.lost
		if res.lost > 0 {
			l.st.ShortImports++
			if res.warnings == 0 {
				l.st.SilentShort++
			}
		}
	}
	l.st.Warnings += res.warnings
	if l.st.FirstWarning == "" {
		l.st.FirstWarning = res.warning
	}
	l.mu.Unlock()
	if err == nil && res.lost > 0 {
		l.rec.markShort(o)
	}
	return res, err
}

// describeImport says what one import brought, for the events.
func describeImport(res importResult, err error) string {
	if err != nil {
		return "failed (" + classify(err) + ")"
	}
	s := fmt.Sprintf("%d of %d progress notifications", res.notifications, res.notifications+res.lost)
	if res.warnings > 0 {
		return s + ", with a warning: " + res.warning
	}
	return s + ", no warning"
}

// listener holds a subscriptions/listen stream open on one front door and
// opens another when the server ends it.
func (l *soakLoad) listener(ctx context.Context, i int) {
	cl := l.listen[i%len(l.listen)]
	for ctx.Err() == nil {
		began := time.Now()
		acked, notes, err := l.holdStream(ctx, cl)
		l.mu.Lock()
		l.st.ListenNotified += notes
		if acked && ctx.Err() == nil {
			l.st.ListenEnded++
		}
		l.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		if !acked {
			l.rec.add("subscriptions/listen", began, err)
		} else {
			msg := "the stream ended"
			if err != nil {
				msg += ": " + err.Error()
			}
			l.rec.failure("subscriptions/listen", kindListenEnded, msg)
		}
		if !pause(ctx, 500*time.Millisecond) {
			return
		}
	}
}

// holdStream opens one listen stream and reads it until it ends or ctx
// does; it reports whether the stream was acknowledged and how many
// notifications came after.
func (l *soakLoad) holdStream(ctx context.Context, cl *client) (acked bool, notes int, err error) {
	b, _ := body(l.seq.Add(1), "subscriptions/listen", "", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, "")
	octx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Until acknowledged, the stream has callTimeout to open.
	timer := time.AfterFunc(callTimeout, cancel)
	req, err := cl.request(octx, "subscriptions/listen", "", b)
	if err != nil {
		return false, 0, err
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, 0, readHTTPError(resp)
	}
	err = readSSE(resp.Body, func(data []byte) (bool, error) {
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			return false, err
		}
		switch {
		case !acked && m.Method == "notifications/subscriptions/acknowledged":
			acked = true
			timer.Stop()
			l.mu.Lock()
			l.st.ListenOpened++
			l.mu.Unlock()
		case !acked:
			if m.Error != nil {
				return true, m.check()
			}
			return false, fmt.Errorf("first message is %q, want the acknowledgement", m.Method)
		case len(m.ID) > 0 && m.Method == "":
			return true, errors.New("the server ended it with its result")
		default:
			notes++
		}
		return false, nil
	})
	if !timer.Stop() && !acked && ctx.Err() == nil {
		err = context.DeadlineExceeded
	}
	return acked, notes, err
}

// revoker mints a token through the admin API, uses it, revokes it through
// one front door and calls with it through the other until it is refused,
// over and over.
func (l *soakLoad) revoker(ctx context.Context) {
	for n := 0; ; n++ {
		if !pause(ctx, l.cfg.revokeEvery) {
			return
		}
		here, there := l.urls[n%len(l.urls)], l.urls[(n+1)%len(l.urls)]
		var created struct {
			Token string `json:"token"`
			Info  struct {
				ID string `json:"id"`
			} `json:"info"`
		}
		began := time.Now()
		err := l.admin(here, "CreateToken", map[string]any{"tenant": l.tenant, "member": "owner", "scopes": []string{"read"},
			"label": fmt.Sprintf("soak %d", n)}, &created)
		l.rec.add("admin CreateToken", began, err)
		if err != nil {
			continue
		}
		// It works before it is revoked (an unavailable answer is retried).
		cl := newClient(here+"/api/mcp", created.Token, 1)
		for try := 0; try < 20; try++ {
			began = time.Now()
			_, err = l.tool(cl, "tasks_list", map[string]any{"limit": 1})
			l.rec.add("tasks_list (new token)", began, err)
			if err == nil || !retryable(err) {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if err != nil && !retryable(err) {
			l.mu.Lock()
			l.st.NewTokenRefused++
			l.mu.Unlock()
		}
		// Revoke it; an unavailable answer is retried until it is done.
		for try := 0; ; try++ {
			began = time.Now()
			err = l.admin(here, "RevokeToken", map[string]any{"tenant": l.tenant, "id": created.Info.ID}, nil)
			l.rec.add("admin RevokeToken", began, err)
			if err == nil || !retryable(err) || try == 40 {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if err != nil {
			continue
		}
		revoked := time.Now()
		l.mu.Lock()
		l.st.Revocations++
		l.mu.Unlock()
		// Through the other front door, until refused.
		cl = newClient(there+"/api/mcp", created.Token, 1)
		late, refused := false, false
		for time.Since(revoked) < 3*l.cfg.revokeBound {
			_, err := l.tool(cl, "tasks_list", map[string]any{"limit": 1})
			var he *httpError
			if errors.As(err, &he) && (he.status == http.StatusUnauthorized || he.status == http.StatusForbidden) {
				refused = true
				break
			}
			if err == nil && time.Since(revoked) > l.cfg.revokeBound {
				late = true
			}
			time.Sleep(50 * time.Millisecond)
		}
		l.mu.Lock()
		switch {
		case refused:
			l.st.revokeLat = append(l.st.revokeLat, time.Since(revoked))
		default:
			l.st.RevokeUnchecked++
		}
		if late {
			l.st.RevokedLate++
		}
		l.mu.Unlock()
	}
}

// adminClient makes the admin API's calls; each has callTimeout.
var adminClient = &http.Client{}

// admin calls method of the admin API on the front door at base with the
// operator secret, decoding the answer into out (nil: none).
func (l *soakLoad) admin(base, method string, req, out any) error {
	b, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/admin/v1/"+method, bytes.NewReader(b))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+l.secret)
	resp, err := adminClient.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &httpError{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: strings.TrimSpace(string(data))}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}
