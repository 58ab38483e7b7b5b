package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"
	"unicode"
)

// Config is what the bridge needs: where Taskwire is and the token to show
// it. Zero values of the other fields mean the defaults noted.
type Config struct {
	// URL is the MCP endpoint, e.g. http://127.0.0.1:8080/api/mcp; a URL
	// without a path gets Taskwire's /api/mcp.
	URL string
	// Token is the bearer token sent with every request. It never
	// reaches a log.
	Token string
	// Drain is how long the bridge waits, once stdin ends, for calls in
	// flight. Default 10 s.
	Drain time.Duration
	// Logger receives the bridge's logs (on stderr). Required: run sets
	// it from the flags before anything can go wrong.
	Logger *slog.Logger
	// HTTPClient reaches the endpoint. Default: newHTTPClient.
	HTTPClient *http.Client
	// UserAgent is sent with every request. Default: taskwire-bridge and
	// the module version.
	UserAgent string

	// err is why the configuration is unusable; the bridge still runs and
	// answers every request with it, so the person sees it in their
	// assistant rather than in a log they may never open.
	err error
}

// validate reports the first problem of c, and makes URL the endpoint.
func (c *Config) validate() error {
	switch {
	case c.URL == "":
		return errors.New("TASKWIRE_URL is not set: set it (or pass --url) to the Taskwire endpoint, e.g. http://127.0.0.1:8080/api/mcp")
	case c.Token == "":
		return errors.New("TASKWIRE_TOKEN is not set: set it to a token from the server's first start or from `taskwire token create`")
	case strings.IndexFunc(c.Token, unicode.IsControl) >= 0 || strings.ContainsRune(c.Token, ' '):
		return errors.New("TASKWIRE_TOKEN holds a space or a control character inside it: set it to the token alone, as it was printed")
	case c.Drain < 0:
		return fmt.Errorf("the drain timeout %s is negative", c.Drain)
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("TASKWIRE_URL %q is not an http(s) URL such as http://127.0.0.1:8080/api/mcp", c.URL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/api/mcp"
	}
	c.URL = u.String()
	return nil
}

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	if c.Drain == 0 {
		c.Drain = 10 * time.Second
	}
	if c.HTTPClient == nil {
		c.HTTPClient = newHTTPClient()
	}
	if c.UserAgent == "" {
		c.UserAgent = "taskwire-bridge/" + moduleVersion()
	}
	return c
}

// moduleVersion is the version go install recorded, "(devel)" otherwise.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// env returns the environment variable's value, or def.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// parseFlags reads the configuration from args and the environment; a
// flag wins over its environment variable. Asked for help (-h, --help),
// it prints the usage on stdout and returns flag.ErrHelp; a mistake gets
// the usage on stderr.
func parseFlags(args []string, stdout, stderr io.Writer) (Config, slog.Level, error) {
	var c Config
	var level slog.Level
	fs := flag.NewFlagSet("taskwire-bridge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	printUsage := func() {
		fmt.Fprintf(fs.Output(), "usage: taskwire-bridge [flags]\n\n%s\n\nflags:\n", strings.TrimSpace(usage))
		fs.PrintDefaults()
	}
	fs.Usage = func() {} // flag calls it for help and mistakes alike: see below
	fs.StringVar(&c.URL, "url", env("TASKWIRE_URL", ""), "the Taskwire MCP endpoint, e.g. http://127.0.0.1:8080/api/mcp (env TASKWIRE_URL)")
	// The token's default is read after parsing, not declared: a flag's
	// default is printed by --help, and the token is a secret.
	fs.StringVar(&c.Token, "token", "", "bearer token; prefer the environment, which other users of the machine cannot read in the process list (env TASKWIRE_TOKEN)")
	drain := env("TASKWIRE_BRIDGE_DRAIN", "10s")
	fs.Func("drain", "how long to wait for calls in flight once standard input closes (env TASKWIRE_BRIDGE_DRAIN; default 10s)", func(s string) error {
		drain = s
		return nil
	})
	logLevel := env("TASKWIRE_BRIDGE_LOG_LEVEL", "info")
	fs.StringVar(&logLevel, "log-level", logLevel, "debug, info, warn or error; logs go to standard error (env TASKWIRE_BRIDGE_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
		}
		printUsage()
		return c, 0, err
	}
	if fs.NArg() > 0 {
		printUsage()
		return c, 0, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.Token == "" {
		c.Token = env("TASKWIRE_TOKEN", "")
	}
	// A token pasted with its line end, or a URL with a space, would make
	// every request fail as if the server were away.
	c.URL, c.Token = strings.TrimSpace(c.URL), strings.TrimSpace(c.Token)
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return c, 0, fmt.Errorf("log level %q: use debug, info, warn or error", logLevel)
	}
	d, err := time.ParseDuration(drain)
	if err != nil {
		return c, 0, fmt.Errorf("drain %q: use a duration such as 10s", drain)
	}
	c.Drain = d
	return c, level, nil
}

const usage = `
taskwire-bridge lets an MCP client that only speaks stdio use a Taskwire
server: it reads one JSON-RPC message per line from standard input, posts
each to the endpoint with the token, and writes every reply to standard
output as one line. Logs go to standard error.

  TASKWIRE_URL=http://127.0.0.1:8080/api/mcp TASKWIRE_TOKEN=eyJ… taskwire-bridge
`
