package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWelcomeHintsNameTheDataDir: the token commands the first start
// prints work as printed, so they name serve's --data unless it is the
// default, quoted for the shell when it needs it.
func TestWelcomeHintsNameTheDataDir(t *testing.T) {
	for _, tc := range []struct{ dir, want string }{
		{defaultDataDir, "taskwire token create --member"},
		{"/srv/board", "taskwire token create --data /srv/board --member"},
		{"/home/ann/my board", "taskwire token create --data '/home/ann/my board' --member"},
		{"it's", `taskwire token create --data 'it'\''s' --member`},
	} {
		var out bytes.Buffer
		printWelcome(&out, "http://127.0.0.1:8080/api/mcp", tc.dir, "default", "owner", "main", "eyJtoken", time.Now(), "http://127.0.0.1:8080/signin/link?k=secret")
		if got := strings.Count(out.String(), tc.want); got != 2 {
			t.Errorf("welcome for --data %q has %d hints %q, want 2 (more tokens, admin token):\n%s", tc.dir, got, tc.want, out.String())
		}
	}
}
