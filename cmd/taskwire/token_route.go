package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/node"
)

// tokenRoute is where a token command acts: through the admin API of a
// running server (api), or on the database itself.
type tokenRoute struct {
	api *adminCmd // nil: on the database
	// shared is set when the database is not the data directory's own:
	// other servers may serve it, which this command cannot tell of a
	// revocation but through NATS.
	shared  bool
	release func() // gives the data directory back to serve
}

// apiFlags are the flags a token command takes to go through the admin
// API of a server instead of the database.
type apiFlags struct {
	url, token, secretFile string
}

func (f *apiFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "url", env("TASKWIRE_ADMIN_URL", ""), "go through the admin API of the server at this URL instead of the database (env TASKWIRE_ADMIN_URL; default: the serve running on --data, if any)")
	fs.StringVar(&f.token, "token", "", "with the admin API: an admin token of an owner or admin (env TASKWIRE_ADMIN_TOKEN; default the operator secret)")
	fs.StringVar(&f.secretFile, "operator-secret-file", env("TASKWIRE_OPERATOR_SECRET_FILE", ""), "with the admin API: the operator secret's file (env TASKWIRE_OPERATOR_SECRET_FILE; default <data>/operator.secret)")
}

// route decides where a token command acts: the admin API at --url; the
// admin API of the serve holding the data directory; or, when none does,
// the database, with the data directory locked so that no serve starts
// meanwhile. It resolves cfg first.
func (f apiFlags) route(ctx context.Context, cfg *config, stdout, stderr io.Writer) (tokenRoute, error) {
	if err := cfg.resolve(node.HostPort(cfg.Addr)); err != nil {
		return tokenRoute{}, err
	}
	url := f.url
	release := func() {}
	if url == "" {
		var err error
		if url, release, err = node.LocalServer(cfg.DataDir); err != nil {
			return tokenRoute{}, err
		}
	}
	if url == "" {
		shared := cfg.DB != cfg.ownDB()
		if !shared && !hasDatabase(cfg.DataDir) {
			release()
			return tokenRoute{}, errNoData(cfg.DataDir)
		}
		return tokenRoute{shared: shared, release: release}, nil
	}
	a := &adminCmd{ctx: ctx, stdout: stdout, stderr: stderr, url: url, token: adminToken(f.token), secretFile: f.secretFile}
	if a.token == "" && a.secretFile == "" {
		a.secretFile, _ = cfg.operatorSecretPath()
	}
	return tokenRoute{api: a, release: release}, nil
}

// hasDatabase reports whether dir holds the database serve creates on its
// first start.
func hasDatabase(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, dbFile))
	return err == nil
}

// errNoData refuses a token command on a data directory serve never
// started on: acting there would create a key and an empty database, and
// then fail for want of the tenant the first start creates.
func errNoData(dir string) error {
	return fmt.Errorf("no Taskwire data in %s: pass --data with the directory taskwire serve uses (or --url with a running server's admin API), "+
		"or start taskwire serve --data %s once to create it", dir, dir)
}

// listTokens lists the tokens of tenant (of member, when named) through
// the admin API, every page.
func (a *adminCmd) listTokens(tenant, member string) ([]*adminv1.Token, error) {
	var all []*adminv1.Token
	for page := ""; ; {
		resp := &adminv1.ListTokensResponse{}
		if err := a.call("ListTokens", &adminv1.ListTokensRequest{Tenant: tenant, Member: member, PageToken: page}, resp); err != nil {
			return nil, memberHint(err)
		}
		all = append(all, resp.GetTokens()...)
		if page = resp.GetNextPageToken(); page == "" {
			return all, nil
		}
	}
}

// errSharedRevoke refuses a revocation on a database other servers may
// serve, with no way to tell them: their memory of live tokens would keep
// the token working for a while.
var errSharedRevoke = errors.New("--db names a database that running servers may serve, and they would not hear of this revocation: " +
	"pass --url with the admin API of the deployment (it revokes and tells every server), or --nats with the deployment's NATS")

// revokeNote is what a revocation made on the database tells, truly.
func revokeNote(r tokenRoute, natsURL, dataDir string) string {
	switch {
	case natsURL != "":
		return fmt.Sprintf("Told the deployment over NATS at %s: its workers and front doors refuse the token from their next call.", natsURL)
	case !r.shared:
		return fmt.Sprintf("No server runs on %s now: the token is refused as soon as one starts.", dataDir)
	}
	return ""
}
