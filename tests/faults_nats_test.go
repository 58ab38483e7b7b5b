package tests

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestNATSRestartUnderLoad runs two workers and two front doors as
// processes over a nats-server of the test's own, with callers creating
// tasks and importing with a progressToken through both front doors, and
// SIGKILLs the NATS server, starting it again 2 s later. Creates go on
// throughout; every import either gets its progress or is told that its
// progress could not be relayed (never neither); progress flows again soon
// after NATS is back; a token revoked while NATS was down, which no
// broadcast announced, is refused by both front doors once NATS is back
// (they reload the revocations when their connection returns); and each
// front door's listen streams are told the tools may have changed, since
// a change announced during the outage was lost.
func TestNATSRestartUnderLoad(t *testing.T) {
	nats := natstest.StartProcess(t)
	d := newDeployment(t, storetest.SQLite)
	d.nats = nats.URL
	d.migrate(t, storetest.SQLite)
	w1, w2 := d.startWorker(t, "worker 1", "127.0.0.1:0"), d.startWorker(t, "worker 2", "127.0.0.1:0")
	workers := w1.grpc + "," + w2.grpc
	d.startFront(t, workers)
	fronts := []string{d.frontAddr, d.startFrontAt(t, "front door 2", workers)}
	token, doomed := d.ownerToken(t), d.ownerToken2(t)
	for _, addr := range fronts {
		if s := d.discoverAt(t, addr, doomed); s != http.StatusOK {
			t.Fatalf("server/discover at %s before the revocation = %d, want 200", addr, s)
		}
	}

	listens := []*listenLog{d.listenAt(t, fronts[0], token), d.listenAt(t, fronts[1], token)}
	load := startNATSLoad(t, d, token, fronts)
	load.legacyImports(t, d, fronts[1], token)
	poll.Until(t, 15*time.Second, "imports with progress before the fault", func() bool { return load.progressSince(time.Time{}) })

	nats.Kill()
	killed := time.Now()
	d.revokeQuietly(t, doomed)
	time.Sleep(2*time.Second - time.Since(killed)) // the outage the scenario asks for
	back := nats.Restart()
	poll.Until(t, 15*time.Second, "progress to flow again after NATS came back", func() bool { return load.progressSince(back) })
	for _, addr := range fronts {
		poll.Until(t, 10*time.Second, "front door "+addr+" to refuse the token revoked while NATS was down", func() bool {
			return d.discoverAt(t, addr, doomed) == http.StatusUnauthorized
		})
	}
	load.stop()
	load.check(t, killed, back)
	for i, l := range listens {
		poll.Until(t, 10*time.Second, fmt.Sprintf("the listen stream at front door %d to hear that the tools may have changed", i+1), func() bool {
			return l.changedSince(back)
		})
	}
}

// listenLog is a subscriptions/listen stream and when it was told the
// tools changed.
type listenLog struct {
	mu      sync.Mutex
	changed []time.Time
}

// listenAt opens a listen stream for tools list changes at the front door
// at addr, and returns once it is acknowledged.
func (d *deployment) listenAt(t *testing.T, addr, token string) *listenLog {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(d.mcpPost(t, addr, token, "subscriptions/listen", "", body).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	l, acked := &listenLog{}, make(chan struct{})
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			switch {
			case strings.Contains(sc.Text(), "notifications/subscriptions/acknowledged"):
				close(acked)
			case strings.Contains(sc.Text(), "notifications/tools/list_changed"):
				l.mu.Lock()
				l.changed = append(l.changed, time.Now())
				l.mu.Unlock()
			}
		}
	}()
	select {
	case <-acked:
	case <-time.After(10 * time.Second):
		t.Fatalf("listen stream at %s: no acknowledgement after 10s (%s)", addr, resp.Status)
	}
	return l
}

// changedSince reports whether the stream was told of a change after since.
func (l *listenLog) changedSince(since time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.changed) > 0 && l.changed[len(l.changed)-1].After(since)
}

// ownerToken2 mints another token of the owner, to be revoked.
func (d *deployment) ownerToken2(t *testing.T) string {
	t.Helper()
	out := nodetest.RunProc(t, d.dir, "token", "create", "--db", d.db, "--signing-key", d.key, "--public-url", d.url(""), "--tenant", "acme", "--member", "ada")
	return strings.TrimSpace(out)
}

// revokeQuietly revokes token in the database and tells nobody: what a
// revocation whose broadcast was lost leaves behind.
func (d *deployment) revokeQuietly(t *testing.T, token string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, d.db, store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := tokens.New(tokens.Config{Client: db, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Revoke(ctx, "acme", jti(t, token)); err != nil {
		t.Fatal(err)
	}
}

// jti returns the id of a JWT.
func jti(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is no JWT", token)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct{ JTI string }
	if err == nil {
		err = json.Unmarshal(raw, &claims)
	}
	if err != nil || claims.JTI == "" {
		t.Fatalf("claims of the token: %v (%s)", err, raw)
	}
	return claims.JTI
}

// discoverAt POSTs server/discover with token to the front door at addr:
// the front door answers it alone, so a 401 is its own refusal.
func (d *deployment) discoverAt(t *testing.T, addr, token string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, err := http.DefaultClient.Do(d.mcpPost(t, addr, token, "server/discover", "", body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// mcpPost is a 2026-07-28 POST of body to the front door at addr, sent to
// d's public URL.
func (d *deployment) mcpPost(t *testing.T, addr, token, method, name, body string) *http.Request {
	t.Helper()
	req := nodetest.MCPRequest(t, "http://"+addr+"/api/mcp", token, method, name, body)
	req.Host = d.frontAddr
	return req
}

// natsLoad is the callers of TestNATSRestartUnderLoad and what they saw.
type natsLoad struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	creates []callOutcome
	imports []callOutcome
	legacy  []*callOutcome // filled in by the legacy client's handler too
}

// callOutcome is what one call got.
type callOutcome struct {
	start, end time.Time
	ok         bool
	failure    string
	progress   []time.Time // when each real progress notification came
	warned     bool        // told its progress could not be relayed
	logged     bool        // it asked for log messages
	legacy     bool        // made in a 2025-11-25 session
	guard      *sync.Mutex // guards a legacy call's outcome
}

// startNATSLoad starts, per front door, a caller creating tasks and one
// importing with a progressToken (every other import also asking for log
// messages at info), until stop.
func startNATSLoad(t *testing.T, d *deployment, token string, fronts []string) *natsLoad {
	l := &natsLoad{done: make(chan struct{})}
	for i, addr := range fronts {
		l.loop(func(n int) {
			o := d.createAt(t, addr, token, fmt.Sprintf("Create %d-%d", i, n))
			l.mu.Lock()
			l.creates = append(l.creates, o)
			l.mu.Unlock()
		})
		l.loop(func(n int) {
			o := d.importAt(t, addr, token, fmt.Sprintf("Import %d-%d", i, n), n%2 == 1)
			l.mu.Lock()
			l.imports = append(l.imports, o)
			l.mu.Unlock()
		})
	}
	t.Cleanup(l.stop)
	return l
}

// loop runs call with 0, 1, 2, … until stop.
func (l *natsLoad) loop(call func(n int)) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for n := 0; ; n++ {
			select {
			case <-l.done:
				return
			default:
			}
			call(n)
		}
	}()
}

func (l *natsLoad) stop() {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	l.wg.Wait()
}

// progressSince reports whether a progress notification came after since.
func (l *natsLoad) progressSince(since time.Time) bool {
	return !l.firstProgress(since).IsZero()
}

// firstProgress is when the first progress notification after since came.
func (l *natsLoad) firstProgress(since time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.firstProgressLocked(since)
}

func (l *natsLoad) firstProgressLocked(since time.Time) time.Time {
	var first time.Time
	for _, o := range l.imports {
		for _, at := range o.progress {
			if at.After(since) && (first.IsZero() || at.Before(first)) {
				first = at
			}
		}
	}
	return first
}

// check: every call succeeded, and every import got its progress or was
// told it could not be relayed; it logs the times worth reporting.
func (l *natsLoad) check(t *testing.T, killed, back time.Time) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var warned, silent, duringCreates int
	for _, o := range l.creates {
		if !o.ok {
			t.Errorf("tasks_create at %v after the kill failed: %s", o.start.Sub(killed).Round(time.Millisecond), o.failure)
		}
		if o.start.After(killed) && o.start.Before(back) {
			duringCreates++
		}
	}
	imports, legacy := slices.Clone(l.imports), 0
	for _, o := range l.legacy {
		o.guard.Lock()
		imports = append(imports, *o)
		legacy += len(o.progress)
		o.guard.Unlock()
	}
	for _, o := range imports {
		switch {
		case !o.ok:
			t.Errorf("tasks_import at %v after the kill failed: %s", o.start.Sub(killed).Round(time.Millisecond), o.failure)
		case o.warned:
			warned++
		case len(o.progress) == 0:
			silent++
			t.Errorf("tasks_import started %v after the kill (NATS back after %v; log messages asked: %v) got neither progress nor a word that it was lost (legacy session: %v)",
				o.start.Sub(killed).Round(time.Millisecond), back.Sub(killed).Round(time.Millisecond), o.logged, o.legacy)
		}
	}
	t.Logf("%d creates (%d while NATS was down), %d imports (%d of a legacy session, which got %d progress notifications): %d told their progress was lost, %d silently without progress",
		len(l.creates), duringCreates, len(imports), len(l.legacy), legacy, warned, silent)
	t.Logf("NATS back %v after the kill; first progress %v after NATS took connections again",
		back.Sub(killed).Round(time.Millisecond), l.firstProgressLocked(back).Sub(back).Round(time.Millisecond))
}

// createAt creates a task through the front door at addr.
func (d *deployment) createAt(t *testing.T, addr, token, title string) callOutcome {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tasks_create","arguments":{"title":` + quoteJSON(title) + `,"allow_duplicate":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	return d.callAt(t, addr, token, "tasks_create", body)
}

// importAt imports 20 tasks through the front door at addr with a
// progressToken, asking for log messages at info when logged.
func (d *deployment) importAt(t *testing.T, addr, token, prefix string, logged bool) callOutcome {
	args, _ := json.Marshal(map[string]any{"tasks": importArgs(prefix, 20)["tasks"], "allow_duplicate": true})
	level := ""
	if logged {
		level = `,"io.modelcontextprotocol/logLevel":"info"`
	}
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tasks_import","arguments":` + string(args) + `,` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":` + quoteJSON(prefix) + level + `}}}`
	o := d.callAt(t, addr, token, "tasks_import", body)
	o.logged = logged
	return o
}

// callAt POSTs a tools/call and reads its answer as it streams.
func (d *deployment) callAt(t *testing.T, addr, token, tool, body string) callOutcome {
	o := callOutcome{start: time.Now()}
	defer func() { o.end = time.Now() }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(d.mcpPost(t, addr, token, "tools/call", tool, body).WithContext(ctx))
	if err != nil {
		o.failure = err.Error()
		return o
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		o.failure = resp.Status
		return o
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			line = data
		} else if !strings.HasPrefix(line, "{") {
			continue
		}
		o.read(line)
	}
	if !o.ok && o.failure == "" {
		o.failure = "no result"
	}
	return o
}

// read takes in one JSON-RPC message of the answer.
func (o *callOutcome) read(line string) {
	var m struct {
		Method string
		Params struct {
			Level   string
			Data    any
			Message string
		}
		Result *struct{ IsError bool }
		Error  any
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		o.failure = "unreadable message: " + line
		return
	}
	lost := func(s string) bool { return strings.Contains(s, "could not be relayed") }
	switch {
	case m.Method == "notifications/progress" && lost(m.Params.Message):
		o.warned = true
	case m.Method == "notifications/progress":
		o.progress = append(o.progress, time.Now())
	case m.Method == "notifications/message" && m.Params.Level == "warning" && lost(fmt.Sprint(m.Params.Data)):
		o.warned = true
	case m.Result != nil:
		o.ok = !m.Result.IsError
		if !o.ok {
			o.failure = "isError: " + line
		}
	case m.Error != nil:
		o.failure = line
	}
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
