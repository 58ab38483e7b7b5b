package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

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
		{"copy", []string{"--from sqlite:", "--to postgres://"}},
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
