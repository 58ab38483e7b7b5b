package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/node"
)

// TestOperatorSecretFile: the first start creates the secret, private,
// and tells it once; later starts read it; a configured file must exist,
// be private and be long enough.
func TestOperatorSecretFile(t *testing.T) {
	cfg := &config{DataDir: t.TempDir()}
	op, created, err := loadOperatorSecret(cfg)
	if err != nil || created == "" || !strings.HasPrefix(created, "twop_") || len(created) < 32+5 {
		t.Fatalf("first load = %q, %v; want a new secret", created, err)
	}
	if !op.Matches(created) {
		t.Errorf("the new secret does not match itself")
	}
	path := filepath.Join(cfg.DataDir, operatorSecretName)
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, want mode 0600", path, err)
	}
	again, createdAgain, err := loadOperatorSecret(cfg)
	if err != nil || createdAgain != "" || !again.Matches(created) {
		t.Errorf("second load = %q, %v; want the same secret, not shown again", createdAgain, err)
	}

	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := strings.Repeat("s", 40)
	for name, tc := range map[string]struct {
		path string
		ok   bool
	}{
		"configured":      {write("good", good+"\n", 0o600), true},
		"missing":         {filepath.Join(dir, "none"), false},
		"group-readable":  {write("open", good, 0o640), false},
		"shorter than 32": {write("short", strings.Repeat("s", 31), 0o600), false},
	} {
		c := &config{DataDir: t.TempDir(), OperatorSecretFile: tc.path}
		op, created, err := loadOperatorSecret(c)
		if (err == nil) != tc.ok || created != "" {
			t.Errorf("%s: load = %q, %v; want ok %v and nothing created", name, created, err, tc.ok)
		}
		if tc.ok && !op.Matches(good) {
			t.Errorf("%s: the file's secret does not match", name)
		}
	}
}

// loadOperatorSecret loads the operator secret where serve reads it.
func loadOperatorSecret(c *config) (*adminedge.OperatorSecret, string, error) {
	return node.LoadOperatorSecret(c.operatorSecretPath())
}
