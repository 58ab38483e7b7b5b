package main

import (
	"strings"
	"testing"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 100: "100", 1000: "1,000", 20000: "20,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestScaleTable: each median is shown beside its ratio to the smallest
// board's, marked when it grew past the target, and the many-tenants
// column comes last.
func TestScaleTable(t *testing.T) {
	recs := []Record{
		{Setup: "taskwire-serve", Scenario: "create", Tool: "tasks_create", Size: 1000, P50Ms: 2},
		{Setup: "taskwire-serve", Scenario: "create", Tool: "tasks_create", Size: 100, Tenants: 1000, P50Ms: 2},
		{Setup: "taskwire-serve", Scenario: "create", Tool: "tasks_create", Size: 20000, P50Ms: 25},
		{Setup: "taskwire-serve", Scenario: "get", Tool: "tasks_get", Size: 1000, P50Ms: 1},
		{Setup: "taskwire-serve", Scenario: "get", Tool: "tasks_get", Size: 20000, P50Ms: 1.1, Errors: 2},
	}
	var b strings.Builder
	if err := markdown(&b, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| scenario | 1,000 | 20,000 | 1,000 tenants × 100 |",
		"| create | 2.00 | 25.00 (12.50× missed) | 2.00 (1.00×) |",
		"| get | 1.00 | 1.10 (1.10×), 2 errors | – |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown(scale records) lacks %q; it is:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "tools/call, median") {
		t.Errorf("markdown(scale records) printed them in the setups' table too:\n%s", b.String())
	}
}
