package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/node"
)

const adminUsage = `usage: taskwire admin <tenants|members|boards|tokens|keys|operators> <command> [flags]
       taskwire admin <signin-link|invite> [flags]

  tenants create SLUG --owner HANDLE [--name NAME] [--owner-name NAME] [--owner-token-ttl 2160h]
  tenants get [SLUG]
  tenants list
  tenants export [SLUG] --out FILE
                             download everything the tenant holds, for taskwire import (owners, admins, operators)
  members add HANDLE [--name NAME] [--kind human|assistant] [--role ROLE] [--sponsor HANDLE]
  members list [--removed]
  members set-role HANDLE owner|admin|member|viewer
  members remove HANDLE
  boards create SLUG [--name NAME] [--rules TEXT]
  boards list [--archived]
  boards archive SLUG
  boards unarchive SLUG
  tokens create --member HANDLE [--scopes read,comment,write] [--toolsets tasks,comments] [--ttl 2160h] [--label TEXT]
  tokens create --member HANDLE --admin [--ttl 24h] [--label TEXT]
  tokens list [--member HANDLE]
  tokens revoke ID
  tokens revoke-member HANDLE
  keys rotate                (operators)
  keys list                  (operators)
  operators grant --email ADDRESS
                             let the person of that console account act as a platform operator (operators)
  operators revoke --email ADDRESS
                             no longer; the last operator cannot be revoked (operators)
  operators list             (operators)
  signin-link --member HANDLE [--ttl 24h]
                             a one-time link to the console for a person (who lost their password)
  invite --email ADDRESS [--role member] [--name NAME] [--handle HANDLE]
                             add a person by email; prints their invitation link (not emailed)

Every command takes:
  --url URL                  the Taskwire server (env TASKWIRE_ADMIN_URL; default the local public URL)
  --token TOKEN              the operator secret or an admin token of an owner or admin (env TASKWIRE_ADMIN_TOKEN);
                             MCP tokens never administer: get an admin token with
                             taskwire token create --member HANDLE --admin (on the server)
  --operator-secret-file F   read the operator secret from F (env TASKWIRE_OPERATOR_SECRET_FILE;
                             default <data>/operator.secret when no token is given)
  --tenant SLUG              the tenant to act on (operators must name it; an admin token acts on its own)
  --json                     print the server's JSON instead of a table
`

// adminCommands are the commands of `taskwire admin`, by group and name.
var adminCommands = map[string]map[string]func(*adminCmd, []string) error{
	"tenants": {
		"create": (*adminCmd).tenantsCreate, "get": (*adminCmd).tenantsGet, "list": (*adminCmd).tenantsList,
		"export": (*adminCmd).tenantsExport,
	},
	"members": {
		"add": (*adminCmd).membersAdd, "list": (*adminCmd).membersList,
		"set-role": (*adminCmd).membersSetRole, "remove": (*adminCmd).membersRemove,
	},
	"boards": {
		"create": (*adminCmd).boardsCreate, "list": (*adminCmd).boardsList,
		"archive": (*adminCmd).boardsArchive, "unarchive": (*adminCmd).boardsUnarchive,
	},
	"tokens": {
		"create": (*adminCmd).tokensCreate, "list": (*adminCmd).tokensList,
		"revoke": (*adminCmd).tokensRevoke, "revoke-member": (*adminCmd).tokensRevokeMember,
	},
	"keys": {"rotate": (*adminCmd).keysRotate, "list": (*adminCmd).keysList},
	"operators": {
		"grant": (*adminCmd).operatorsGrant, "revoke": (*adminCmd).operatorsRevoke, "list": (*adminCmd).operatorsList,
	},
}

// runAdmin runs `taskwire admin <group> <command>` against the admin API
// of a running server, over HTTP.
func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) >= 1 {
		if cmd, ok := adminSingles[args[0]]; ok {
			return cmd(newAdminCmd(ctx, "taskwire admin "+args[0], stdout, stderr), args[1:])
		}
	}
	if len(args) >= 2 {
		if cmd, ok := adminCommands[args[0]][args[1]]; ok {
			return cmd(newAdminCmd(ctx, "taskwire admin "+args[0]+" "+args[1], stdout, stderr), args[2:])
		}
	}
	if len(args) > 0 && isHelp(args[len(args)-1]) {
		return showHelp(stdout, adminUsage) // "admin --help", "admin members --help"
	}
	fmt.Fprint(stderr, adminUsage)
	return flag.ErrHelp
}

// adminSingles are the commands of `taskwire admin` that are no group's.
var adminSingles = map[string]func(*adminCmd, []string) error{
	"signin-link": (*adminCmd).signinLink,
	"invite":      (*adminCmd).invite,
}

// newAdminCmd is the command name with its common flags.
func newAdminCmd(ctx context.Context, name string, stdout, stderr io.Writer) *adminCmd {
	a := &adminCmd{ctx: ctx, stdout: stdout, stderr: stderr}
	a.fs = flag.NewFlagSet(name, flag.ContinueOnError)
	a.fs.SetOutput(stderr)
	a.fs.Usage = func() {
		fmt.Fprintf(a.fs.Output(), "usage of %s (see \"taskwire admin --help\" for every command):\n", a.fs.Name())
		a.fs.PrintDefaults()
	}
	a.commonFlags()
	return a
}

// adminCmd is one admin command: its flags, and a client of the API.
type adminCmd struct {
	ctx            context.Context
	stdout, stderr io.Writer
	fs             *flag.FlagSet
	url, token     string
	secretFile     string
	tenant         string
	asJSON         bool
	http           *http.Client
}

func (a *adminCmd) commonFlags() {
	a.fs.StringVar(&a.url, "url", env("TASKWIRE_ADMIN_URL", defaultAdminURL()), "the Taskwire server (env TASKWIRE_ADMIN_URL)")
	a.fs.StringVar(&a.token, "token", "", "the operator secret or an admin token of an owner or admin (env TASKWIRE_ADMIN_TOKEN); MCP tokens never administer")
	a.fs.StringVar(&a.secretFile, "operator-secret-file", env("TASKWIRE_OPERATOR_SECRET_FILE", ""), "read the operator secret from this file (env TASKWIRE_OPERATOR_SECRET_FILE)")
	a.fs.StringVar(&a.tenant, "tenant", "", "slug of the tenant to act on (an admin token acts on its own)")
	a.fs.BoolVar(&a.asJSON, "json", false, "print the server's JSON instead of a table")
}

// defaultAdminURL is the public URL serve uses by default on this machine.
func defaultAdminURL() string {
	if u := os.Getenv("TASKWIRE_PUBLIC_URL"); u != "" {
		return u
	}
	return "http://" + node.HostPort(env("TASKWIRE_ADDR", "127.0.0.1:8080"))
}

// parse parses the flags, which may come before or after the n positional
// arguments the command takes (at most n, at least min).
func (a *adminCmd) parse(args []string, min, max int) ([]string, error) {
	pos, err := parseWithArgs(a.fs, args, a.stdout)
	if err != nil {
		return nil, err
	}
	if len(pos) < min || len(pos) > max {
		a.fs.Usage()
		return nil, fmt.Errorf("%s takes %s", a.fs.Name(), argCount(min, max))
	}
	return pos, nil
}

func argCount(min, max int) string {
	switch {
	case min == max && min == 0:
		return "no arguments"
	case min == max:
		return fmt.Sprintf("%d argument(s)", min)
	}
	return fmt.Sprintf("%d to %d arguments", min, max)
}

// adminToken is --token's value, else TASKWIRE_ADMIN_TOKEN's. The
// variable is read here rather than declared as the flag's default,
// because flag prints defaults in the help, and the token is a secret.
func adminToken(flagValue string) string {
	return cmp.Or(flagValue, env("TASKWIRE_ADMIN_TOKEN", ""))
}

// credential is the bearer the command sends: --token, else the operator
// secret file named, else the data directory's.
func (a *adminCmd) credential() (string, error) {
	if tok := adminToken(a.token); tok != "" {
		return tok, nil
	}
	path := a.secretFile
	if path == "" {
		path = filepath.Join(env("TASKWIRE_DATA", defaultDataDir), operatorSecretName)
		if _, err := os.Stat(path); err != nil {
			return "", errors.New("no credential: pass --operator-secret-file (the operator.secret of the server's data directory) or --token with an admin token (taskwire token create --member HANDLE --admin on the server mints one; MCP tokens never administer)")
		}
	}
	secret, err := node.ReadSecretFile(path)
	if err != nil {
		return "", fmt.Errorf("operator secret: %w", err)
	}
	return secret, nil
}

// call calls method of the admin API with req, decoding the answer into
// resp. A refusal is an error with the server's message.
func (a *adminCmd) call(method string, req, resp proto.Message) error {
	ctx, cancel := context.WithTimeout(a.ctx, 30*time.Second)
	defer cancel()
	hresp, err := a.send(ctx, method, req)
	if err != nil {
		return err
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, 16<<20))
	if err != nil {
		return err
	}
	return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, resp)
}

// send POSTs req to method of the admin API and returns the answer of a
// call that succeeded, for the caller to read and close; a refusal is an
// error with the server's message.
func (a *adminCmd) send(ctx context.Context, method string, req proto.Message) (*http.Response, error) {
	bearer, err := a.credential()
	if err != nil {
		return nil, err
	}
	if err := needTenant(method, req, bearer); err != nil {
		return nil, err
	}
	body, err := protojson.Marshal(req)
	if err != nil {
		return nil, err
	}
	u := strings.TrimSuffix(a.url, "/") + adminedge.JSONPrefix + method
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Authorization", "Bearer "+bearer)
	client := a.http
	if client == nil {
		client = http.DefaultClient
	}
	hresp, err := client.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the admin API at %s (%w): check --url (or TASKWIRE_ADMIN_URL) and that the server is running", a.url, err)
	}
	if hresp.StatusCode != http.StatusOK {
		defer hresp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(hresp.Body, 1<<20))
		return nil, serverError(hresp.StatusCode, data)
	}
	return hresp, nil
}

// needTenant refuses, before any call, a command of the operator secret
// that names no tenant where the call needs one: the operator acts on
// every tenant, and the server's refusal could not name the flag to add.
// A tenant token (a JWT) acts on its own tenant and needs none.
func needTenant(method string, req proto.Message, bearer string) error {
	m := req.ProtoReflect()
	f := m.Descriptor().Fields().ByName("tenant")
	if f == nil || m.Get(f).String() != "" || strings.Count(bearer, ".") == 2 {
		return nil
	}
	if method == "GetTenant" {
		return errors.New("name the tenant: taskwire admin tenants get SLUG (the operator secret belongs to no tenant)")
	}
	return errors.New("name the tenant with --tenant SLUG: the operator secret acts on every tenant, so each member, board and token command names one")
}

// serverError is the message of an error answer, as the server put it;
// a refused credential also says how to get one.
func serverError(code int, data []byte) error {
	var e struct{ Code, Message string }
	if json.Unmarshal(data, &e) == nil && e.Message != "" {
		if code == http.StatusUnauthorized && !strings.Contains(e.Message, adminedge.HowToGetCredential) {
			return &apiError{status: code, msg: fmt.Sprintf("%s (%s)", e.Message, adminedge.HowToGetCredential)}
		}
		return &apiError{status: code, msg: e.Message}
	}
	return fmt.Errorf("the server answered %d %s: is --url a Taskwire server?", code, http.StatusText(code))
}

// printJSON prints m as protojson, indented.
func (a *adminCmd) printJSON(m proto.Message) error {
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  ", EmitDefaultValues: true}.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, string(b))
	return err
}

// apiError is an error answer of the admin API: its message, as the
// server put it, and its HTTP status, for a command that can say which of
// its flags to change.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// memberHint adds to a not-found answer of a token command which flags
// name the member: the server's sentence cannot know them.
func memberHint(err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.status == http.StatusNotFound {
		return fmt.Errorf("%s: check --member, or name the member's tenant with --tenant SLUG", ae.msg)
	}
	return err
}
