package frontdoor

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
)

// fakeClock is a RateLimits.Now that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

var (
	alice = identity.Caller{Tenant: "acme", Member: 1, TokenID: "jti-alice"}
	bob   = identity.Caller{Tenant: "acme", Member: 2, TokenID: "jti-bob"}
	carol = identity.Caller{Tenant: "globex", Member: 1, TokenID: "jti-carol"}
)

func newLimiter(t testing.TB, c RateLimits) (*RateLimiter, *fakeClock) {
	t.Helper()
	clock := &fakeClock{t: testNow()}
	c.Now = clock.now
	rl, err := NewRateLimiter(c)
	if err != nil {
		t.Fatalf("NewRateLimiter: %v", err)
	}
	return rl, clock
}

// takes charges n calls of op to c, failing t unless all pass.
func takes(t testing.TB, rl *RateLimiter, c identity.Caller, op string, n int) *charge {
	t.Helper()
	var ch *charge
	for i := range n {
		var over *Refusal
		if ch, over = rl.take(c, op); over != nil {
			t.Fatalf("call %d of %s by %s refused: %+v", i+1, op, c.TokenID, over)
		}
	}
	return ch
}

// refused fails t unless a call of op by c is refused by level, and
// returns how long it must wait.
func refused(t testing.TB, rl *RateLimiter, c identity.Caller, op, level string) time.Duration {
	t.Helper()
	ch, over := rl.take(c, op)
	if over == nil {
		t.Fatalf("call of %s by %s passed with budget %s, want refused by the %s limit", op, c.TokenID, ch.budget, level)
	}
	if over.Level != level || over.Op != op {
		t.Errorf("refusal = %s limit on %s, want %s limit on %s", over.Level, over.Op, level, op)
	}
	return over.Wait
}

func TestRateLimiterBurstThenRate(t *testing.T) {
	rl, clock := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 2, Burst: 3}})
	takes(t, rl, alice, "tools/call:tasks_list", 3)
	if wait := refused(t, rl, alice, "tools/call:tasks_list", "token"); wait != 500*time.Millisecond {
		t.Errorf("wait = %v, want 500ms (one call at 2 a second)", wait)
	}
	clock.advance(499 * time.Millisecond)
	if wait := refused(t, rl, alice, "tools/call:tasks_list", "token"); wait != time.Millisecond {
		t.Errorf("wait 1ms early = %v, want 1ms", wait)
	}
	clock.advance(time.Millisecond)
	takes(t, rl, alice, "tools/call:tasks_list", 1)
	refused(t, rl, alice, "tools/call:tasks_list", "token")
	clock.advance(time.Hour) // refills to the burst, no further
	takes(t, rl, alice, "tools/call:tasks_list", 3)
	refused(t, rl, alice, "tools/call:tasks_list", "token")
}

func TestRateLimiterKeys(t *testing.T) {
	rl, _ := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 1, Burst: 2}})
	takes(t, rl, alice, "tools/call:tasks_list", 2)
	refused(t, rl, alice, "tools/call:tasks_list", "token")
	// Another tool, another method, another token: buckets of their own.
	takes(t, rl, alice, "tools/call:tasks_create", 2)
	takes(t, rl, alice, "tools/list", 2)
	takes(t, rl, bob, "tools/call:tasks_list", 2)
}

// TestRateLimiterTenant: the tokens of a tenant share its bucket, and a
// call the tenant's bucket refuses takes nothing from the token's.
func TestRateLimiterTenant(t *testing.T) {
	rl, clock := newLimiter(t, RateLimits{
		Token:  RateLimit{PerSecond: 1, Burst: 3},
		Tenant: RateLimit{PerSecond: 10, Burst: 4},
	})
	const op = "tools/call:tasks_create"
	takes(t, rl, alice, op, 3)
	refused(t, rl, alice, op, "token")
	takes(t, rl, bob, op, 1)
	if wait := refused(t, rl, bob, op, "tenant"); wait != 100*time.Millisecond {
		t.Errorf("wait = %v, want 100ms (one call at 10 a second)", wait)
	}
	takes(t, rl, carol, op, 3) // another tenant
	clock.advance(100 * time.Millisecond)
	ch := takes(t, rl, bob, op, 1)
	// Had the refused call taken one, bob's bucket would hold 0.1.
	if want := "token=1/1/3;tenant=0/10/4"; ch.budget.String() != want {
		t.Errorf("budget = %s, want %s: the refused call took nothing from bob's bucket", ch.budget, want)
	}
}

func TestRateLimiterBudget(t *testing.T) {
	rl, _ := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 10, Burst: 20}, Tenant: RateLimit{PerSecond: 50, Burst: 100}})
	ch := takes(t, rl, alice, "tools/call:whoami", 1)
	want := access.Budget{
		Token:  &access.BudgetLevel{Remaining: 19, PerSecond: 10, Burst: 20},
		Tenant: &access.BudgetLevel{Remaining: 99, PerSecond: 50, Burst: 100},
	}
	if ch.budget.String() != want.String() {
		t.Errorf("budget = %s, want %s", ch.budget, want)
	}
	rl, _ = newLimiter(t, RateLimits{Tenant: RateLimit{PerSecond: 1, Burst: 1}})
	if ch := takes(t, rl, alice, "tools/list", 1); ch.budget.Token != nil || ch.budget.String() != "tenant=0/1/1" {
		t.Errorf("budget without a token limit = %s, want tenant=0/1/1 only", ch.budget)
	}
}

func TestRateLimiterGiveBack(t *testing.T) {
	rl, _ := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 1, Burst: 2}, Tenant: RateLimit{PerSecond: 1, Burst: 2}})
	const op = "tools/call:tasks_create"
	takes(t, rl, alice, op, 1)
	ch := takes(t, rl, alice, op, 1)
	ch.giveBack()
	takes(t, rl, alice, op, 1)
	refused(t, rl, alice, op, "token")

	// Giving back to a bucket that refilled, or was dropped, never lifts
	// it above its burst.
	rl, clock := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 1, Burst: 2}})
	ch = takes(t, rl, alice, op, 1)
	clock.advance(time.Minute)
	ch.giveBack()
	ch.giveBack()
	takes(t, rl, alice, op, 2)
	refused(t, rl, alice, op, "token")
}

// TestRateLimiterIdleBuckets: a bucket that has refilled is dropped, so
// memory follows the callers active lately, and the cap holds it when
// too many are.
func TestRateLimiterIdleBuckets(t *testing.T) {
	rl, clock := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 1, Burst: 2}, Tenant: RateLimit{PerSecond: 10, Burst: 20}})
	for i := range 10 {
		takes(t, rl, alice, fmt.Sprint("tools/call:tool_", i), 1)
	}
	if n := len(rl.buckets); n != 20 {
		t.Fatalf("buckets = %d, want 20 (10 operations, 2 levels)", n)
	}
	clock.advance(time.Second) // every bucket full again
	takes(t, rl, bob, "tools/list", 1)
	if n := len(rl.buckets); n != 2 {
		t.Errorf("buckets after they refilled = %d, want only bob's 2", n)
	}

	capped, _ := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 1, Burst: 1}, MaxBuckets: 3})
	for i := range 5 {
		takes(t, capped, alice, fmt.Sprint("tools/call:tool_", i), 1)
	}
	if n := len(capped.buckets); n != 3 {
		t.Errorf("buckets = %d, want the cap of 3", n)
	}
	takes(t, capped, alice, "tools/call:tool_0", 1) // evicted first: a new bucket
	refused(t, capped, alice, "tools/call:tool_4", "token")
}

// TestRateLimiterReplicas: each of n replicas enforces 1/n of a limit,
// the burst rounded up.
func TestRateLimiterReplicas(t *testing.T) {
	rl, _ := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 10, Burst: 20}, Tenant: RateLimit{PerSecond: 1, Burst: 1}, Replicas: 3})
	ch := takes(t, rl, alice, "tools/list", 1)
	if got, want := ch.budget.String(), "token=6/3.3333333333333335/7;tenant=0/0.3333333333333333/1"; got != want {
		t.Errorf("budget = %s, want %s", got, want)
	}
}

func TestRateLimiterOff(t *testing.T) {
	rl, _ := newLimiter(t, RateLimits{})
	ch := takes(t, rl, alice, "tools/list", 1000)
	if s := ch.budget.String(); s != "" {
		t.Errorf("budget without limits = %q, want none", s)
	}
	if n := len(rl.buckets); n != 0 {
		t.Errorf("buckets without limits = %d, want 0", n)
	}
}

func TestRateLimitsValidate(t *testing.T) {
	for _, c := range []RateLimits{
		{Token: RateLimit{PerSecond: -1, Burst: 1}},
		{Token: RateLimit{PerSecond: 1}},
		{Tenant: RateLimit{PerSecond: 1, Burst: -3}},
		{Tenant: RateLimit{PerSecond: math.Inf(1), Burst: 1}},
		{Replicas: -1},
		{MaxBuckets: -1},
	} {
		if _, err := NewRateLimiter(c); err == nil {
			t.Errorf("NewRateLimiter(%+v) = nil error, want one", c)
		}
	}
	if err := (RateLimits{Token: RateLimit{Burst: 0}}).Validate(); err != nil {
		t.Errorf("Validate(no limits) = %v", err)
	}
}

func TestOperation(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	for _, tt := range []struct {
		method, params, want string
	}{
		{"tools/list", `{"name":"x"}`, "tools/list"},
		{"tools/call", `{"name":"tasks_create"}`, "tools/call:tasks_create"},
		{"tools/call", `{}`, "tools/call:"},
		{"tools/call", `{"name":"` + long + `"}`, "tools/call:" + strings.Repeat("é", 64)},
	} {
		params, _ := object([]byte(tt.params))
		if got := operation(tt.method, params); got != tt.want {
			t.Errorf("operation(%s, %s) = %q, want %q", tt.method, tt.params, got, tt.want)
		}
	}
}

// TestBucketMemory measures what one bucket costs, to keep
// DefaultMaxBuckets' claim honest.
func TestBucketMemory(t *testing.T) {
	const n = 20000
	rl, _ := newLimiter(t, RateLimits{Token: RateLimit{PerSecond: 1, Burst: 20}, MaxBuckets: n})
	callers := make([]identity.Caller, n)
	for i := range callers {
		callers[i] = identity.Caller{Tenant: "acme", Member: 1, TokenID: fmt.Sprintf("%036d", i)}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, c := range callers {
		rl.take(c, "tools/call:tasks_create")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(rl.buckets) != n {
		t.Fatalf("buckets = %d, want %d", len(rl.buckets), n)
	}
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("one bucket: about %d bytes", per)
	if per > 400 {
		t.Errorf("one bucket takes %d bytes, want at most 400", per)
	}
	runtime.KeepAlive(rl)
	runtime.KeepAlive(callers) // their token ids are not the buckets'
}
