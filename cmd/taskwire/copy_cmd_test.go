package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestCopyRefusesWhileServeRuns: copy refuses a data directory serve
// holds, before it reaches the target, since what serve writes during the
// copy would be missing from it.
func TestCopyRefusesWhileServeRuns(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	dir := h.Sys.Config().DataDir
	for _, from := range []string{dir, "sqlite:" + dir + "/taskwire.db"} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"copy", "--from", from, "--to", "postgres://127.0.0.1:1/unreached"}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "taskwire serve is running on "+dir+": stop it first") {
			t.Errorf("taskwire copy --from %s while serve runs = %v, want a refusal saying to stop serve first", from, err)
		}
	}
}
