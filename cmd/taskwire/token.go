package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/tokens"
)

const tokenUsage = `usage:
  taskwire token create --member HANDLE [--scopes read,comment,write] [--toolsets tasks,comments] [--ttl 2160h] [--label TEXT]
  taskwire token create --member HANDLE --admin [--ttl 24h] [--label TEXT]
  taskwire token list [--member HANDLE] [--json]
  taskwire token revoke JTI
  taskwire token revoke --member HANDLE

They go through the admin API of the serve running on --data (or of --url),
and work on the database only when no server runs on it.
`

// runToken runs `taskwire token <create|list|revoke>`.
func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if isHelp(args[0]) {
			return showHelp(stdout, tokenUsage)
		}
		switch args[0] {
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
// which tenant, and how to reach a server's admin API instead.
func tokenFlags(name string, cfg *config, api *apiFlags, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("taskwire token "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.commonFlags(fs)
	api.declare(fs)
	tenant := fs.String("tenant", "default", "slug of the member's tenant")
	return fs, tenant
}

// commandLogger is the logger of a token command working on the database:
// warnings and errors only (a migration that changed data, a revocation
// not broadcast), as text on the command's stderr, beside its messages.
func commandLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// openTokens opens the database of cfg, resolved already, and a token
// store over it, both logging to log. With natsURL, revocations are also
// broadcast to the deployment's workers and front doors.
func openTokens(ctx context.Context, cfg *config, natsURL string, log *slog.Logger) (*ent.Client, *tokens.Store, func(), error) {
	db, err := store.Open(ctx, cfg.DB, store.Logger(log))
	if err != nil {
		return nil, nil, nil, err
	}
	closeAll := func() { db.Close() }
	tc := tokens.Config{Client: db, Logger: log, MaxTTL: cfg.MaxTokenTTL, Quota: quota.Limits{TokensPerMember: cfg.Quota.TokensPerMember}}
	if natsURL != "" {
		nc, err := nats.Connect(natsURL, nats.Name("taskwire token"), nats.Timeout(node.ConnectTimeout))
		if err != nil {
			db.Close()
			return nil, nil, nil, fmt.Errorf("connect to NATS at %s: %w", natsURL, err)
		}
		// Flushed before closing: the revocation must have reached the
		// server when the command says it was told.
		closeAll = func() { nc.Flush(); nc.Close(); db.Close() }
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

// runTokenCreate mints and records a token for a member: through the
// admin API of the server running on the data directory (or --url), or
// else on the database serve uses, which needs the same data directory
// (or --db and --signing-key) and the same public URL, since the URL is
// the token's audience.
func runTokenCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	var api apiFlags
	var create createFlags
	fs, tenant := tokenFlags("create", &cfg, &api, stderr)
	create.declare(fs)
	// Minted on the database (no server running), the token counts
	// against its member's quota as the servers count it.
	fs.IntVar(&cfg.Quota.TokensPerMember, "quota-tokens-per-member", cfg.envInt("TASKWIRE_QUOTA_TOKENS_PER_MEMBER", quota.Defaults.TokensPerMember),
		"with no server running: live tokens one member may hold, as serve's flag; 0: no quota (env TASKWIRE_QUOTA_TOKENS_PER_MEMBER)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	r, err := api.route(ctx, &cfg, stdout, stderr)
	if err != nil {
		return err
	}
	defer r.release()
	// Minted here, the token lives at most this command's --max-token-ttl;
	// minted by a server, at most the server's, which it applies itself.
	max := cfg.MaxTokenTTL
	if r.api != nil {
		max = 0
	}
	req, err := create.request(fs, *tenant, max)
	if err != nil {
		return err
	}
	if r.api != nil {
		return r.api.createToken(req)
	}
	return createOnDatabase(ctx, &cfg, req, stdout, stderr)
}

// createOnDatabase mints req with the database's current signing key, as
// the servers sign, through the admin service's CreateToken acting as a
// platform operator (whoever holds the database and the key is one): the
// same checks and the same record as a token minted through the admin API.
func createOnDatabase(ctx context.Context, cfg *config, req tokenRequest, stdout, stderr io.Writer) error {
	db, st, closeAll, err := openTokens(ctx, cfg, "", commandLogger(stderr))
	if err != nil {
		return err
	}
	defer closeAll()
	svc, err := adminOnDatabase(ctx, cfg, db, st)
	if err != nil {
		return err
	}
	resp, err := svc.CreateToken(identity.NewOperatorContext(ctx), &adminv1.CreateTokenRequest{
		Tenant: req.tenant, Member: req.member, Scopes: req.scopes, Toolsets: req.toolsets, Ttl: ttlProto(req.ttl), Label: req.label, Admin: req.admin,
	})
	if err != nil {
		return memberFlagHint(err)
	}
	fmt.Fprintln(stdout, resp.GetToken())
	printCreated(stderr, resp.GetToken(), tokenInfo(resp.GetInfo()), req.tenant, cfg.PublicURL)
	return nil
}

// adminOnDatabase is the admin service over db and its token store st,
// minting with the keyring's current key. Running servers hear of
// nothing, as nothing rotates here.
func adminOnDatabase(ctx context.Context, cfg *config, db *ent.Client, st *tokens.Store) (*admin.Service, error) {
	key, _, err := authn.LoadOrCreateKey(cfg.SigningKey)
	if err != nil {
		return nil, err
	}
	retired, err := node.LoadRetiredKeys(cfg.retiredKeys(), key)
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.DiscardHandler)
	signing, err := node.OpenSigning(ctx, db, nil, key, retired, cfg.MaxTokenTTL, cfg.PublicURL, quiet)
	if err != nil {
		return nil, err
	}
	return admin.New(admin.Config{Client: db, Tokens: st, Issuer: signing.Issuer, Keys: signing.Keys, Quota: quota.Limits{TokensPerMember: cfg.Quota.TokensPerMember}, Logger: quiet})
}

// findMemberFlag finds the member --member names in the tenant --tenant
// names; not finding it says which flags to check.
func findMemberFlag(ctx context.Context, db *ent.Client, tenant, handle string) (*ent.Member, error) {
	m, err := tenancy.FindMember(ctx, db, tenant, handle)
	if err != nil {
		return nil, memberFlagHint(err)
	}
	return m, nil
}

// memberFlagHint says which flags to check when the member (or its
// tenant) is not found.
func memberFlagHint(err error) error {
	if domainerr.KindOf(err) == domainerr.NotFound {
		return fmt.Errorf("%s: check --member, or name the member's tenant with --tenant SLUG", domainerr.Message(err))
	}
	return err
}

// toolsetsFlagUsage describes --toolsets of the token commands.
const toolsetsFlagUsage = "comma-separated toolsets the token is limited to: context, tasks, comments, work, audit (default all)"

// runTokenList prints a tenant's tokens, without the tokens themselves:
// through the admin API of the server running on the data directory (or
// --url), or else from the database.
func runTokenList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	var api apiFlags
	fs, tenant := tokenFlags("list", &cfg, &api, stderr)
	member := fs.String("member", "", "list only the tokens of the member with this handle")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	r, err := api.route(ctx, &cfg, stdout, stderr)
	if err != nil {
		return err
	}
	defer r.release()
	var list []tokens.Info
	if r.api != nil {
		listed, err := r.api.listTokens(*tenant, *member)
		if err != nil {
			return err
		}
		for _, t := range listed {
			list = append(list, tokenInfo(t))
		}
	} else if list, err = listOnDatabase(ctx, &cfg, *tenant, *member, commandLogger(stderr)); err != nil {
		return err
	}
	if *asJSON {
		return printTokensJSON(stdout, list, time.Now())
	}
	return printTokens(stdout, list, time.Now())
}

// listOnDatabase lists the tokens of tenant (of member, when named) from
// the database.
func listOnDatabase(ctx context.Context, cfg *config, tenant, member string, log *slog.Logger) ([]tokens.Info, error) {
	db, st, closeAll, err := openTokens(ctx, cfg, "", log)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	memberID := 0
	if member != "" {
		m, err := findMemberFlag(ctx, db, tenant, member)
		if err != nil {
			return nil, err
		}
		memberID = m.ID
	}
	return st.List(ctx, tenant, memberID)
}

// runTokenRevoke revokes one token by id, or every live token of a
// member. Through the admin API of the server running on the data
// directory (or --url), the revocation is the server's own and holds from
// the next call. With no server running on the data directory, it is
// stored in the database, which every server reads at its start. On a
// database other servers may serve (--db), it needs --url, or --nats to
// tell them: it never promises what it cannot do.
func runTokenRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	var api apiFlags
	fs, tenant := tokenFlags("revoke", &cfg, &api, stderr)
	member := fs.String("member", "", "revoke every live token of the member with this handle")
	natsURL := fs.String("nats", env("TASKWIRE_NATS", ""), "with --db: the deployment's NATS, to tell its workers and front doors (env TASKWIRE_NATS)")
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
	r, err := api.route(ctx, &cfg, stdout, stderr)
	if err != nil {
		return err
	}
	defer r.release()
	if r.api != nil {
		return r.api.revoke(*tenant, *member, ids)
	}
	if r.shared && *natsURL == "" {
		return errSharedRevoke
	}
	if err := revokeOnDatabase(ctx, &cfg, *natsURL, *tenant, *member, ids, stdout, commandLogger(stderr)); err != nil {
		return err
	}
	if note := revokeNote(r, *natsURL, cfg.DataDir); note != "" {
		fmt.Fprintln(stderr, note)
	}
	return nil
}

// revoke revokes one token (ids) or a member's through the admin API.
func (a *adminCmd) revoke(tenant, member string, ids []string) error {
	if member == "" {
		if err := a.call("RevokeToken", &adminv1.RevokeTokenRequest{Tenant: tenant, Id: ids[0]}, &adminv1.RevokeTokenResponse{}); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "revoked token %s\n", ids[0])
	} else {
		resp := &adminv1.RevokeMemberTokensResponse{}
		if err := a.call("RevokeMemberTokens", &adminv1.RevokeMemberTokensRequest{Tenant: tenant, Member: member}, resp); err != nil {
			return memberHint(err)
		}
		fmt.Fprintf(a.stdout, "revoked %d token(s) of %s on tenant %s\n", resp.GetRevokedTokens(), member, tenant)
	}
	fmt.Fprintf(a.stderr, "Revoked by the server at %s: refused from the next call.\n", a.url)
	return nil
}

// revokeOnDatabase revokes one token (ids) or a member's in the database,
// broadcasting on natsURL when set.
func revokeOnDatabase(ctx context.Context, cfg *config, natsURL, tenant, member string, ids []string, stdout io.Writer, log *slog.Logger) error {
	db, st, closeAll, err := openTokens(ctx, cfg, natsURL, log)
	if err != nil {
		return err
	}
	defer closeAll()
	if member == "" {
		if err := st.Revoke(ctx, tenant, ids[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked token %s\n", ids[0])
		return nil
	}
	m, err := findMemberFlag(ctx, db, tenant, member)
	if err != nil {
		return err
	}
	n, err := st.RevokeMember(ctx, tenant, m.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked %d token(s) of %s on tenant %s\n", n, member, tenant)
	return nil
}
