package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// tsClientDir is the TypeScript SDK client's project (connect.mjs), its
// dependencies pinned in package-lock.json.
const tsClientDir = "tsclient"

// tsClientWait bounds one run of the TypeScript client: npm's start, the
// registration, the consent and the calls, and an access token's lifetime
// when it waits one out.
const tsClientWait = 2 * time.Minute

// tsOutput is what the TypeScript client reported.
type tsOutput struct {
	Tools  []string         `json:"tools"`
	Whoami []map[string]any `json:"-"`      // every whoami result, in order
	Tokens int              `json:"tokens"` // token sets it saved
	Error  string           `json:"error"`
}

// TestBrowserOAuthTypeScript: the TypeScript SDK's client, with no token
// and no registration, connects as Claude.ai does: it follows the 401 to
// the metadata, registers itself dynamically, and sends the person to the
// authorization page, where the owner approves in the browser; it then
// lists the tools and acts as an assistant the owner sponsors. It does so
// against `taskwire serve` in process, where it also outlives its access
// token (of a second) and refreshes it; against the taskwire binary's
// serve as an operator runs it; and against two front doors with
// PostgreSQL, where the consent is given on one replica and the code
// exchanged on the other.
func TestBrowserOAuthTypeScript(t *testing.T) {
	requireTSClient(t)
	t.Run("serve", func(t *testing.T) {
		// The client refreshes only when refused, and front doors accept
		// a token for a clock's leeway after it expires: its tokens live
		// a second, and it waits out the leeway too.
		s, _ := embeddedSiteWith(t, nodetest.Setups()[0], func(c *node.SystemConfig) {
			oauthTestConfig(c)
			c.OAuth.Limits.AccessTTL = time.Second
		})
		wait := strconv.Itoa(int((authn.DefaultLeeway + time.Second) / time.Second))
		out := runTSClient(t, s, newPerson(t, s), s.firstLink, "--refresh-after", wait)
		checkTSClient(t, out, s.owner, 2)
		if out.Tokens < 2 {
			t.Errorf("the client saved %d token sets after its access token expired, want a refreshed one too", out.Tokens)
		}
	})
	t.Run("taskwire serve binary", func(t *testing.T) {
		s := servedSite(t)
		checkTSClient(t, runTSClient(t, s, newPerson(t, s), s.firstLink), s.owner, 1)
	})
	t.Run("two front doors", func(t *testing.T) {
		s, _ := oauthCluster(t, nodetest.Setups()[1])
		p := newPerson(t, s)
		checkTSClient(t, runTSClient(t, s, p, s.signInLink(t, s.owner)), s.owner, 1)
	})
}

// checkTSClient checks the TypeScript client's report: it listed the
// tools and called whoami calls times, each time as an assistant member
// sponsored by owner.
func checkTSClient(t *testing.T, out tsOutput, owner string, calls int) {
	t.Helper()
	if out.Error != "" {
		t.Fatalf("the TypeScript client failed: %s", out.Error)
	}
	if !slices.Contains(out.Tools, "tasks_create") {
		t.Errorf("the TypeScript client listed %v, want the board's tools", out.Tools)
	}
	if len(out.Whoami) != calls {
		t.Fatalf("the TypeScript client called whoami %d times, want %d", len(out.Whoami), calls)
	}
	for _, who := range out.Whoami {
		if who["kind"] != "assistant" || who["sponsor"] != owner {
			t.Errorf("whoami of the TypeScript client = %v, want an assistant sponsored by %s", who, owner)
		}
	}
}

// requireTSClient installs the TypeScript client's dependencies when they
// are missing (npm ci), and skips t when npm is not there.
func requireTSClient(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is missing: skipping the TypeScript SDK client")
	}
	if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", ".bin", "node")); err == nil {
		return
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tsClientDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in tests/%s: %v\n%s", tsClientDir, err, out)
	}
}

// runTSClient runs the TypeScript client against s's MCP endpoint with
// args, has p approve its authorization request (signing in with link),
// and returns what it reported.
func runTSClient(t *testing.T, s *site, p *person, link string, args ...string) tsOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tsClientWait)
	defer cancel()
	// Node 22 comes with the project (the node package), as the SDK wants.
	cmd := exec.CommandContext(ctx, filepath.Join("node_modules", ".bin", "node"), append([]string{"connect.mjs", s.endpoint}, args...)...)
	cmd.Dir = tsClientDir
	var stderr nodetest.SyncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out tsOutput
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		var line struct {
			Authorize string         `json:"authorize"`
			Whoami    map[string]any `json:"whoami"`
			tsOutput
		}
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			t.Errorf("the TypeScript client printed %q: %v", lines.Text(), err)
			continue
		}
		switch {
		case line.Authorize != "":
			if _, err := p.approve(line.Authorize, link); err != nil {
				t.Errorf("the TypeScript client's authorization request: %v", err)
			}
		case line.Whoami != nil:
			out.Whoami = append(out.Whoami, line.Whoami)
		case line.Tools != nil:
			out.Tools = line.Tools
		case line.Tokens != 0:
			out.Tokens = line.Tokens
		case line.Error != "":
			out.Error = line.Error
		}
	}
	if err := cmd.Wait(); err != nil && out.Error == "" {
		out.Error = err.Error() + "\n" + stderr.String()
	}
	return out
}

// servedSite runs the taskwire binary's serve, as an operator does, and
// returns it as a site with the owner's one-time sign-in link that its
// first start printed.
func servedSite(t *testing.T) *site {
	t.Helper()
	dir := t.TempDir()
	p := nodetest.StartProc(t, dir, "serve", "serve", "--addr", "127.0.0.1:0", "--data", dir)
	endpoint, _ := p.Logged(t, "taskwire serving")["endpoint"].(string)
	base := strings.TrimSuffix(endpoint, "/api/mcp")
	link := regexp.MustCompile(regexp.QuoteMeta(base) + `(/signin/link\?k=[\w-]+)`)
	poll.Until(t, pageWait, "serve to print the owner's sign-in link", func() bool { return link.MatchString(p.Stdout.String()) })
	return &site{base: base, endpoint: endpoint, owner: "owner", firstLink: link.FindStringSubmatch(p.Stdout.String())[1]}
}
