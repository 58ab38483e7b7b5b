package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestWorkerTarget(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
		resolver   bool
	}{
		{"dns:///workers:9090", "dns:///workers:9090", false},
		{"passthrough:///127.0.0.1:9090", "passthrough:///127.0.0.1:9090", false},
		{"10.0.0.1:9090, 10.0.0.2:9090", staticScheme + ":///workers", true},
	} {
		got, opts, err := workerTarget(tc.spec)
		if got != tc.want || (len(opts) > 0) != tc.resolver || err != nil {
			t.Errorf("workerTarget(%q) = %q, %d options, %v; want %q, resolver %v", tc.spec, got, len(opts), err, tc.want, tc.resolver)
		}
	}
	if _, _, err := workerTarget(" , "); err == nil {
		t.Error(`workerTarget(" , ") = nil error, want one naming no worker`)
	}
}

// TestNodeCommandsNameWhatIsMissing: worker and frontdoor started without
// the settings every process of a deployment shares refuse, naming them.
func TestNodeCommandsNameWhatIsMissing(t *testing.T) {
	t.Setenv("TASKWIRE_NATS", "") // an environment that sets it must not hide the refusal
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"worker", []string{"--public-url", "--signing-key", "--nats", "--internal-key-file", "--db"}},
		{"frontdoor", []string{"--public-url", "--signing-key", "--nats", "--internal-key-file", "--workers"}},
		{"migrate", []string{"taskwire migrate --db URL"}},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), []string{tc.cmd}, &bytes.Buffer{}, &stderr)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("taskwire %s with no settings = %v, want an error naming %s", tc.cmd, err, w)
			}
		}
	}
}
