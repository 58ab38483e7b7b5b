package node

import (
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
