package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/services/authn"
	"github.com/taskwire/taskwire/services/authz"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/events"
	"github.com/taskwire/taskwire/services/store"
	"github.com/taskwire/taskwire/services/tenancy"
	"github.com/taskwire/taskwire/services/tokens"
)

const tokenUsage = `usage:
  taskwire token create --member HANDLE [--scopes read,comment,write] [--toolsets tasks,comments] [--ttl 2160h] [--label TEXT]
  taskwire token list [--member HANDLE] [--json]
  taskwire token revoke JTI
  taskwire token revoke --member HANDLE
`

// runToken runs `taskwire token <create|list|revoke>`.
func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			return showHelp(stdout, tokenUsage)
		case "create":
			return runTokenCreate(ctx, args[1:], stdout, stderr)
		case "list":
			return runTokenList(ctx, args[1:], stdout, stderr)
		case "revoke":
			return runTokenRevoke(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprint(stderr, tokenUsage)
	return flag.ErrHelp
}

// tokenFlags are the flags every token command shares: where the data is,
// and which tenant.
func tokenFlags(name string, cfg *config, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("taskwire token "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.commonFlags(fs)
	tenant := fs.String("tenant", "default", "slug of the member's tenant")
	return fs, tenant
}

// openTokens opens the database of cfg and a token store over it. With
// natsURL, revocations are also broadcast to the front doors.
func openTokens(ctx context.Context, cfg *config, natsURL string) (*ent.Client, *tokens.Store, func(), error) {
	if err := cfg.resolve(hostPort(cfg.Addr)); err != nil {
		return nil, nil, nil, err
	}
	db, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, nil, nil, err
	}
	closeAll := func() { db.Close() }
	tc := tokens.Config{Client: db}
	if natsURL != "" {
		nc, err := nats.Connect(natsURL, nats.Name("taskwire token"), nats.Timeout(connectTimeout))
		if err != nil {
			db.Close()
			return nil, nil, nil, fmt.Errorf("connect to NATS at %s: %w", natsURL, err)
		}
		closeAll = func() { nc.Close(); db.Close() }
		if tc.Events, err = events.New(nc); err != nil {
			closeAll()
			return nil, nil, nil, err
		}
	}
	st, err := tokens.New(tc)
	if err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	return db, st, closeAll, nil
}

// runTokenCreate mints and records a token for a member of the database
// serve uses. It needs the same data directory (or --db and --signing-key)
// and the same public URL, since the URL is the token's audience.
func runTokenCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs, tenant := tokenFlags("create", &cfg, stderr)
	member := fs.String("member", "", "handle of the member the token acts as (required)")
	scopes := fs.String("scopes", "read,comment,write", "comma-separated scopes: read, comment, write")
	toolsets := fs.String("toolsets", "", toolsetsFlagUsage)
	ttl := fs.Duration("ttl", authn.DefaultTTL, "how long the token is valid")
	label := fs.String("label", "", `what the token is for, shown by "token list", e.g. "laptop claude"`)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *member == "" {
		fs.Usage()
		return errors.New("name the member the token acts as with --member HANDLE")
	}
	db, st, closeAll, err := openTokens(ctx, &cfg, "")
	if err != nil {
		return err
	}
	defer closeAll()
	m, err := findMemberFlag(ctx, db, *tenant, *member)
	if err != nil {
		return err
	}
	key, _, err := authn.LoadOrCreateKey(cfg.SigningKey)
	if err != nil {
		return err
	}
	retired, err := loadRetiredKeys(cfg.retiredKeys(), key)
	if err != nil {
		return err
	}
	// The token is signed with the current key of the database, as serve
	// signs; running servers hear of nothing, as nothing rotates here.
	ring, err := openKeyring(ctx, db, key, retired, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	is, err := authn.NewIssuer(authn.IssuerConfig{Current: ring.Current, Issuer: cfg.PublicURL, Audience: cfg.endpoint()})
	if err != nil {
		return err
	}
	token, info, err := st.Create(ctx, is, tokens.CreateRequest{
		Tenant: *tenant, Member: m.ID, Scopes: strings.Split(*scopes, ","), Toolsets: commaList(*toolsets), TTL: *ttl, Label: *label,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintf(stderr, "token %s for %s on tenant %s, scopes %s, toolsets %s, expires %s, audience %s\n",
		info.ID, *member, *tenant, strings.Join(info.Scopes, ","), authz.ToolsetsText(info.Toolsets), info.ExpiresAt.Format(time.RFC3339), cfg.endpoint())
	return nil
}

// findMemberFlag finds the member --member names in the tenant --tenant
// names; not finding it says which flags to check.
func findMemberFlag(ctx context.Context, db *ent.Client, tenant, handle string) (*ent.Member, error) {
	m, err := tenancy.FindMember(ctx, db, tenant, handle)
	if domainerr.KindOf(err) == domainerr.NotFound {
		return nil, fmt.Errorf("%s: check --member, or name the member's tenant with --tenant SLUG", domainerr.Message(err))
	}
	return m, err
}

// toolsetsFlagUsage describes --toolsets of the token commands.
const toolsetsFlagUsage = "comma-separated toolsets the token is limited to: context, tasks, comments, work, audit (default all)"

// runTokenList prints a tenant's tokens, without the tokens themselves.
func runTokenList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs, tenant := tokenFlags("list", &cfg, stderr)
	member := fs.String("member", "", "list only the tokens of the member with this handle")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	db, st, closeAll, err := openTokens(ctx, &cfg, "")
	if err != nil {
		return err
	}
	defer closeAll()
	memberID := 0
	if *member != "" {
		m, err := findMemberFlag(ctx, db, *tenant, *member)
		if err != nil {
			return err
		}
		memberID = m.ID
	}
	list, err := st.List(ctx, *tenant, memberID)
	if err != nil {
		return err
	}
	if *asJSON {
		return printTokensJSON(stdout, list, time.Now())
	}
	return printTokens(stdout, list, time.Now())
}

// listedToken is one token of `token list --json`.
type listedToken struct {
	tokens.Info
	State string `json:"state"` // live, revoked or expired
}

func printTokensJSON(w io.Writer, list []tokens.Info, now time.Time) error {
	out := make([]listedToken, len(list))
	for i, t := range list {
		out[i] = listedToken{Info: t, State: t.State(now)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func printTokens(w io.Writer, list []tokens.Info, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMEMBER\tSCOPES\tTOOLSETS\tLABEL\tCREATED\tEXPIRES\tLAST USED\tSTATE")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Member, strings.Join(t.Scopes, ","),
			authz.ToolsetsText(t.Toolsets), orDash(t.Label), shortTime(&t.CreatedAt), shortTime(&t.ExpiresAt), shortTime(t.LastUsedAt), t.State(now))
	}
	return tw.Flush()
}

func shortTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// runTokenRevoke revokes one token by id, or every live token of a member.
// With --nats, it also tells the front doors at once; without, workers
// refuse the tokens at once (they read the database on every call) and
// front doors from their next start or NATS reconnect.
func runTokenRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs, tenant := tokenFlags("revoke", &cfg, stderr)
	member := fs.String("member", "", "revoke every live token of the member with this handle")
	natsURL := fs.String("nats", env("TASKWIRE_NATS", ""), "NATS server URL, to tell the front doors at once (env TASKWIRE_NATS)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: taskwire token revoke JTI | --member HANDLE [flags]\n(an id that starts with a dash, from an older version, goes after --: taskwire token revoke -- -Xy…)\n")
		fs.PrintDefaults()
	}
	ids, err := parseWithArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if (len(ids) == 1) == (*member != "") || len(ids) > 1 {
		fs.Usage()
		return errors.New("name either one token id or --member, not both")
	}
	db, st, closeAll, err := openTokens(ctx, &cfg, *natsURL)
	if err != nil {
		return err
	}
	defer closeAll()
	if *member == "" {
		if err := st.Revoke(ctx, *tenant, ids[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked token %s\n", ids[0])
	} else {
		m, err := findMemberFlag(ctx, db, *tenant, *member)
		if err != nil {
			return err
		}
		n, err := st.RevokeMember(ctx, *tenant, m.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked %d token(s) of %s on tenant %s\n", n, *member, *tenant)
	}
	if *natsURL == "" {
		fmt.Fprintln(stderr, "Workers refuse revoked tokens at once; without --nats, front doors learn of it when they next start or reconnect to NATS.")
	}
	return nil
}

// hostPort is addr as a client would dial it.
func hostPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}
