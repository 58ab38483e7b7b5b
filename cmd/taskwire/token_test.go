package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// tokenCLI runs token commands against one database, as an operator would
// on the machine where serve runs.
type tokenCLI struct {
	t    *testing.T
	dsn  string
	data string
}

// run runs `taskwire token args… --data … --db …` and returns its output.
func (c tokenCLI) run(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	args = append(append([]string{"token"}, args...), "--data", c.data, "--db", c.dsn, "--public-url", "http://127.0.0.1:8080")
	err = run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func (c tokenCLI) ok(args ...string) (stdout, stderr string) {
	c.t.Helper()
	stdout, stderr, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("taskwire token %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return stdout, stderr
}

// newTokenCLI bootstraps a database on backend b with the owner and an
// assistant, "bot": on SQLite the data directory's own database, on
// PostgreSQL a database servers elsewhere may serve.
func newTokenCLI(t *testing.T, b storetest.Backend) tokenCLI {
	t.Helper()
	c := tokenCLI{t: t, dsn: storetest.DSN(t, b), data: t.TempDir()}
	if b == storetest.SQLite {
		c.dsn = "sqlite:" + filepath.Join(c.data, "taskwire.db")
	}
	ctx := context.Background()
	db, err := store.Open(ctx, c.dsn, store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := tenancy.Bootstrap(ctx, db, tenancy.Config{TenantSlug: "default", OwnerHandle: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenancy.AddMember(ctx, db, "default", tenancy.MemberSpec{
		Handle: "bot", Kind: member.KindAssistant, SponsorHandle: res.Owner.Handle,
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

var createdRE = regexp.MustCompile(`^token (\S+) for `)

// TestTokenCommands: create records tokens with labels, list shows them
// without the tokens, revoke by id (telling front doors over NATS) and by
// member marks them revoked.
func TestTokenCommands(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) { testTokenCommands(t, newTokenCLI(t, b), b == storetest.Postgres) })
	}
}

func testTokenCommands(t *testing.T, cli tokenCLI, shared bool) {
	ownerTok, created := cli.ok("create", "--member", "owner", "--label", "laptop claude")
	owner := createdRE.FindStringSubmatch(created)
	botTok, created := cli.ok("create", "--member", "bot", "--scopes", "read", "--ttl", "24h")
	bot := createdRE.FindStringSubmatch(created)
	if owner == nil || bot == nil {
		t.Fatalf("token create did not name the token id on stderr: %q", created)
	}

	table, _ := cli.ok("list")
	for _, want := range []string{"ID", "LAST USED", owner[1], bot[1], "laptop claude", "read,comment,write", "live"} {
		if !strings.Contains(table, want) {
			t.Errorf("token list lacks %q:\n%s", want, table)
		}
	}
	if n := strings.Count(strings.TrimSpace(table), "\n"); n != 2 {
		t.Errorf("token list has %d rows, want 2:\n%s", n, table)
	}
	listed := listTokensJSON(t, cli, "--member", "bot")
	if len(listed) != 1 || listed[0]["id"] != bot[1] || listed[0]["member"] != "bot" ||
		listed[0]["state"] != "live" || listed[0]["last_used_at"] != nil {
		t.Errorf("token list --json --member bot = %v, want bot's live token only", listed)
	}
	all, _ := cli.ok("list", "--json")
	for _, secret := range []string{ownerTok, botTok} {
		secret = strings.TrimSpace(secret)
		if strings.Contains(table+all, secret[strings.LastIndex(secret, ".")+1:]) {
			t.Error("token list shows a token's signature")
		}
	}

	set := frontDoorSet(t, cli.dsn)
	// The id first, flags after it, as people type it.
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"token", "revoke", owner[1], "--data", cli.data, "--db", cli.dsn,
		"--nats", set.url}, &out, &errOut)
	if err != nil || out.String() != "revoked token "+owner[1]+"\n" || !strings.Contains(errOut.String(), "Told the deployment over NATS") {
		t.Fatalf("token revoke JTI = %q, %v\n%s", out.String(), err, errOut.String())
	}
	poll.Until(t, 5*time.Second, "the front door to hear the revocation", func() bool { return set.Has(owner[1]) })

	// On a database servers elsewhere may serve, a revocation nobody is
	// told of is refused; on the data directory's own, with no server
	// running, it is stored and says so.
	revoked, note, err := cli.run("revoke", "--member", "bot")
	switch {
	case shared && (err == nil || !strings.Contains(err.Error(), "--url") || !strings.Contains(err.Error(), "--nats")):
		t.Errorf("token revoke --member bot on a shared database without --nats = %v, want refused naming --url and --nats", err)
	case shared:
		revoked, note = cli.ok("revoke", "--member", "bot", "--nats", set.url)
	case err != nil || !strings.Contains(note, "No server runs on "+cli.data):
		t.Errorf("token revoke --member bot = %v (stderr %q), want it stored, saying no server runs", err, note)
	}
	if revoked != "revoked 1 token(s) of bot on tenant default\n" {
		t.Errorf("token revoke --member bot = %q (stderr %q), want 1 revoked", revoked, note)
	}
	for _, tok := range listTokensJSON(t, cli) {
		if tok["state"] != "revoked" || tok["revoked_at"] == nil {
			t.Errorf("after revoking, token list --json has %v, want it revoked", tok)
		}
	}
}

// TestTokenRevokeRefuses: revoke names one token or one member, and an
// unknown one is an error.
func TestTokenRevokeRefuses(t *testing.T) {
	cli := newTokenCLI(t, storetest.SQLite)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"revoke"}, "either one token id or --member"},
		{[]string{"revoke", "abc", "--member", "bot"}, "either one token id or --member"},
		{[]string{"revoke", "abc", "def"}, "either one token id or --member"},
		{[]string{"revoke", "nope"}, `no token "nope" in tenant default`},
		{[]string{"revoke", "--", "-dash"}, `no token "-dash" in tenant default`},
		{[]string{"revoke", "--member", "nobody"}, "nobody"},
		{[]string{"list", "--member", "nobody"}, "nobody"},
		{[]string{"create", "--member", "bot", "--label", strings.Repeat("x", 101)}, "label"},
		{[]string{"create", "--member", "bot", "--ttl", "0"}, "--ttl 0s: a token must live a positive time, at most 2160h (--max-token-ttl); leave --ttl out for the default"},
		{[]string{"create", "--member", "bot", "--ttl", "-1h"}, "--ttl -1h0m0s: a token must live a positive time"},
		{[]string{"create", "--member", "bot", "--ttl", "876000h"}, "--ttl 876000h: a token may live at most 2160h (--max-token-ttl)"},
		{[]string{"create", "--member", "bot", "--ttl", "48h", "--max-token-ttl", "24h"}, "--ttl 48h: a token may live at most 24h (--max-token-ttl)"},
		{[]string{"create", "--member", "bot", "--max-token-ttl", "0"}, "--max-token-ttl 0s: want a positive duration"},
		{[]string{"create", "--member", "bot", "--admin"}, "bot is an assistant, and admin tokens are for people"},
		{[]string{"create", "--member", "owner", "--admin", "--scopes", "read"}, "--admin mints an admin token, which has no scopes"},
		{[]string{"create", "--member", "owner", "--quota-tokens-per-member", "-1"}, "--quota-tokens-per-member"},
	} {
		if _, _, err := cli.run(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("taskwire token %s = %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestTokenCreateQuota: minted on the database with no server running, a
// token counts against its member's quota of live tokens, as the servers
// count it.
func TestTokenCreateQuota(t *testing.T) {
	cli := newTokenCLI(t, storetest.SQLite)
	cli.ok("create", "--member", "bot", "--quota-tokens-per-member", "2")
	cli.ok("create", "--member", "bot", "--quota-tokens-per-member", "2")
	if _, _, err := cli.run("create", "--member", "bot", "--quota-tokens-per-member", "2"); err == nil || !strings.Contains(err.Error(), "bot holds 2 live tokens, the most one member may") {
		t.Errorf("a third token with a quota of 2 = %v, want refused naming the quota", err)
	}
	cli.ok("create", "--member", "owner", "--quota-tokens-per-member", "2") // another member's own quota
}

// TestFirstStartRecordsToken: the token the first start prints is
// recorded, so it can be listed and revoked like any other.
func TestFirstStartRecordsToken(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	v, err := authn.NewVerifier(authn.VerifierConfig{
		Keys:   map[string]ed25519.PublicKey{h.Sys.Key.ID: h.Sys.Key.Public()},
		Issuer: h.Sys.Config().PublicURL, Audience: h.Sys.Endpoint,
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Verify(context.Background(), h.Token)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tokens.New(tokens.Config{Client: h.Sys.DB, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.List(context.Background(), h.Sys.First().Tenant.Slug, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != c.TokenID || list[0].Member != "owner" || list[0].Label != "first start" {
		t.Errorf("tokens after the first start = %+v, want the printed token (%s), labelled", list, c.TokenID)
	}
	// The printed token is for MCP; the welcome says how to administer.
	if !strings.Contains(h.Out, "This token is for MCP only") || !regexp.MustCompile(`taskwire token create --data \S+ --member owner --admin`).MatchString(h.Out) {
		t.Errorf("the first start does not say how to get an admin credential:\n%s", h.Out)
	}
}

func listTokensJSON(t *testing.T, cli tokenCLI, args ...string) []map[string]any {
	t.Helper()
	out, _ := cli.ok(append([]string{"list", "--json"}, args...)...)
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("token list --json printed %q: %v", out, err)
	}
	return list
}

// testSet is a front door's revocation set, on its own NATS connection.
type testSet struct {
	*tokens.Revocations
	url string
}

// frontDoorSet starts a revocation set loaded from the database at dsn
// and listening on NATS.
func frontDoorSet(t *testing.T, dsn string) testSet {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := tokens.New(tokens.Config{Client: db, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	set, err := tokens.NewRevocations(tokens.RevocationsConfig{Load: st.LiveRevocations, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	url := natstest.URL(t)
	stop, err := set.Start(context.Background(), natstest.Connect(t, url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return testSet{Revocations: set, url: url}
}

// TestTokenCreateThroughServerTakesItsMaximum: through a running server,
// `token create` leaves the lifetime to the server's --max-token-ttl, not
// to the command's own (the default, here shorter), and the server
// refuses what is past its own.
func TestTokenCreateThroughServerTakesItsMaximum(t *testing.T) {
	h := nodetest.StartWith(t, setups()[0], func(c *node.SystemConfig) { c.MaxTokenTTL = 4000 * time.Hour })
	cli := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"token", "create", "--member", "owner", "--data", h.Sys.Config().DataDir}, args...), &out, &errOut)
		return out.String(), errOut.String(), err
	}
	if _, created, err := cli("--ttl", "3000h"); err != nil || !strings.Contains(created, "token ") {
		t.Errorf("token create --ttl 3000h through a server allowing 4000h = %v (stderr %q), want it created", err, created)
	}
	if _, _, err := cli("--ttl", "5000h"); err == nil || !strings.Contains(err.Error(), "at most 4000h") {
		t.Errorf("token create --ttl 5000h through a server allowing 4000h = %v, want refused naming the server's maximum", err)
	}
}

// TestTokenCreateThroughServerNamesTheAudience: through a running server
// reached at its listen address, `token create` names the token's
// audience, the public URL's endpoint, not the address it reached.
func TestTokenCreateThroughServerNamesTheAudience(t *testing.T) {
	h := nodetest.StartWith(t, setups()[0], func(c *node.SystemConfig) { c.PublicURL = "https://board.example.com" })
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "--member", "owner", "--data", h.Sys.Config().DataDir}, &out, &errOut); err != nil {
		t.Fatalf("token create: %v\n%s", err, errOut.String())
	}
	if want := "audience https://board.example.com/api/mcp\n"; !strings.HasSuffix(errOut.String(), want) {
		t.Errorf("token create through the server printed %q, want it to end with %q", errOut.String(), want)
	}
}

// TestTokenCommandsRefuseAnEmptyDataDir: with no server and no data where
// --data points, a token command says to name serve's directory instead
// of creating a key and an empty database there.
func TestTokenCommandsRefuseAnEmptyDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	for _, args := range [][]string{
		{"token", "create", "--member", "owner"},
		{"token", "list"},
		{"token", "revoke", "--member", "owner"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(args, "--data", dir), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "pass --data") {
			t.Errorf("taskwire %s on an empty data dir = %v, want a refusal that says to pass --data", strings.Join(args, " "), err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("taskwire %s created %s (%v), want nothing created", strings.Join(args, " "), dir, err)
		}
	}
}
