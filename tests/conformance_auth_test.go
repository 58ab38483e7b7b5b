package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/node/nodetest"
)

// envConformance names the conformance directory (with the suite
// installed in its node_modules, as conformance/run does with npm ci);
// unset, the suite's authorization-server scenarios are skipped.
const envConformance = "TASKWIRE_TEST_CONFORMANCE"

// conformanceWait bounds the suite's run: the metadata scenario, and the
// authorization code grant with its browser step.
const conformanceWait = 2 * time.Minute

// TestConformanceAuthorization runs the official conformance suite's
// authorization-server scenarios against `taskwire serve`: the metadata
// endpoint, and the authorization code grant, whose browser step (the
// owner's sign-in and consent) headless Chromium does. The suite's client
// registers like any other (RFC 7591) with its loopback callback. Every
// check must pass.
func TestConformanceAuthorization(t *testing.T) {
	dir := os.Getenv(envConformance)
	if dir == "" {
		t.Skipf("%s is not set: skipping the conformance suite's authorization scenarios (conformance/run and CI set it to the conformance directory, after npm ci there)", envConformance)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "conformance")); err != nil {
		t.Fatalf("%s=%s has no installed suite (%v): run npm ci there", envConformance, dir, err)
	}
	s, _ := embeddedSite(t, nodetest.Setups()[0])
	p := newPerson(t, s)
	port := strings.TrimPrefix(nodetest.FreeAddr(t), "127.0.0.1:")
	client := registerClient(t, s.base, "http://127.0.0.1:"+port+"/callback")
	out := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), conformanceWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "run", "--silent", "conformance", "--",
		"authorization", "--url", s.base, "--client-id", client, "--resource", s.endpoint, "-p", port, "-o", out)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	var stderr nodetest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		line := lines.Text()
		log.WriteString(line + "\n")
		if strings.HasPrefix(line, s.base+"/oauth/authorize?") {
			if _, err := p.approve(line, s.firstLink); err != nil {
				t.Errorf("the suite's authorization request: %v", err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the conformance suite: %v", err)
	}
	checked := conformanceChecks(t, out)
	if t.Failed() || len(checked) == 0 {
		t.Logf("the suite printed:\n%s%s", log.String(), stderr.String())
	}
	if !slices.Contains(checked, "authorization-code-grant") {
		t.Errorf("the suite checked %v, want the authorization code grant among them", checked)
	}
	t.Logf("the suite checked %v", checked)
}

// conformanceChecks reads every checks.json the suite wrote under out,
// fails t for each check that did not pass, and returns the checks' ids.
func conformanceChecks(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var checks []struct{ ID, Status, ErrorMessage string }
		if err := json.Unmarshal(raw, &checks); err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		for _, c := range checks {
			ids = append(ids, c.ID)
			if c.Status != "SUCCESS" {
				t.Errorf("%s: check %s = %s %s, want SUCCESS", filepath.Base(filepath.Dir(path)), c.ID, c.Status, c.ErrorMessage)
			}
		}
		return nil
	})
	return ids
}
