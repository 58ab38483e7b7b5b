package poll

import (
	"testing"
	"time"
)

// recorder is a testing.TB that notes a failure instead of ending the
// test, so Until's own failure can be checked.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
	panic(r)
}

func TestUntilReturnsOnceCondHolds(t *testing.T) {
	calls := 0
	Until(t, time.Minute, "the third call", func() bool { calls++; return calls == 3 })
	if calls != 3 {
		t.Fatalf("Until asked cond %d times, want 3", calls)
	}
}

func TestUntilFailsAfterTimeout(t *testing.T) {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != any(r) {
				panic(p)
			}
		}()
		Until(r, 20*time.Millisecond, "nothing", func() bool { return false })
	}()
	if r.failed == "" {
		t.Fatal("Until returned although cond never held")
	}
}
