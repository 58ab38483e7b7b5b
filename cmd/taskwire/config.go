package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/loopback"
	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/node"
)

// config is what serve and token create read from flags and the
// environment. Every flag has an environment variable; a flag wins.
type config struct {
	Addr           string
	DataDir        string
	DB             string
	PublicURL      string
	SigningKey     string
	RetiredKeys    string
	NATS           string
	NATSListen     string
	AllowedOrigins string
	LogLevel       string
	MetricsAddr    string // serve, frontdoor: where /metrics is served; empty: nowhere
	Pprof          bool   // also serve Go's profiles beside /metrics
	ShutdownGrace  time.Duration
	MaxTokenTTL    time.Duration // the longest a token may live
	Conformance    bool
	Rate           rateConfig         // rate limits; the zero value has none
	Limits         limitsConfig       // the front door's other limits; the zero value has none
	Quota          quota.Limits       // what each tenant may hold; the zero value bounds nothing
	Sessions       node.SessionLimits // serve, worker: how long console sign-ins last
	OAuth          node.OAuthConfig   // serve, worker: the OAuth authorization server

	// OAuthClientsFile names the --oauth-clients file, read into OAuth by
	// resolve; oauthDeclared tells that the command takes the OAuth flags.
	OAuthClientsFile string
	oauthDeclared    bool

	// sessionsDeclared tells that the command takes the session flags.
	sessionsDeclared bool

	// envErr is a malformed numeric environment variable, reported by
	// resolve: flags are declared before anything can fail.
	envErr error

	// OIDCFile names the --oidc-providers file; oidc are its providers,
	// read by resolve.
	OIDCFile string
	oidc     []oidcsignin.ProviderConfig

	// SMTP is how invitations are emailed (serve, worker); mail is its
	// sender, made by resolve, nil when no mail server is named.
	SMTP smtpConfig
	mail *mail.Sender

	// OperatorSecretFile holds the platform operators' secret for the
	// admin API; empty: <data>/operator.secret, created on first start.
	OperatorSecretFile string
}

// env returns the environment variable's value, or def.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// commonFlags are the flags both commands need to reach the same data.
func (c *config) commonFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.DataDir, "data", env("TASKWIRE_DATA", defaultDataDir), "data directory for the SQLite database and signing key (env TASKWIRE_DATA)")
	fs.StringVar(&c.DB, "db", env("TASKWIRE_DB", ""), "database: sqlite:<path> or postgres://… (env TASKWIRE_DB; default sqlite in the data directory)")
	fs.StringVar(&c.SigningKey, "signing-key", env("TASKWIRE_SIGNING_KEY", ""), "Ed25519 signing key file, created if missing (env TASKWIRE_SIGNING_KEY; default <data>/signing.key)")
	fs.StringVar(&c.RetiredKeys, "retired-signing-keys", env("TASKWIRE_RETIRED_SIGNING_KEYS", ""), "comma-separated key files of signing keys rotated out: their tokens, legacy sessions and request states are still accepted until they expire, nothing new is signed with them (env TASKWIRE_RETIRED_SIGNING_KEYS)")
	fs.StringVar(&c.PublicURL, "public-url", env("TASKWIRE_PUBLIC_URL", ""), "URL clients use to reach this server, e.g. https://board.example.com (env TASKWIRE_PUBLIC_URL; default http://<addr>)")
	fs.StringVar(&c.Addr, "addr", env("TASKWIRE_ADDR", "127.0.0.1:8080"), "HTTP listen address (env TASKWIRE_ADDR)")
	c.maxTTLFlag(fs)
}

// maxTTLFlag declares --max-token-ttl, which every command that mints or
// verifies tokens takes.
func (c *config) maxTTLFlag(fs *flag.FlagSet) {
	fs.DurationVar(&c.MaxTokenTTL, "max-token-ttl", c.envDuration("TASKWIRE_MAX_TOKEN_TTL", authn.DefaultMaxTTL),
		"the longest a token may live, e.g. 720h: longer lifetimes are refused when minting and when verifying, and a retired signing key stops verifying at most this long after its rotation (env TASKWIRE_MAX_TOKEN_TTL)")
}

// checkMaxTTL refuses a maximum token lifetime that is not positive.
func (c *config) checkMaxTTL() error {
	if c.MaxTokenTTL <= 0 {
		return fmt.Errorf("--max-token-ttl %v: want a positive duration, e.g. 2160h (90 days)", c.MaxTokenTTL)
	}
	return nil
}

func (c *config) serveFlags(fs *flag.FlagSet) {
	c.commonFlags(fs)
	fs.StringVar(&c.NATS, "nats", env("TASKWIRE_NATS", ""), "NATS server URL (env TASKWIRE_NATS; default: an in-process server)")
	fs.StringVar(&c.NATSListen, "nats-listen", env("TASKWIRE_NATS_LISTEN", ""), "also let the in-process NATS server listen on this address, e.g. 127.0.0.1:4223 (env TASKWIRE_NATS_LISTEN; default: no port)")
	fs.StringVar(&c.AllowedOrigins, "allowed-origins", env("TASKWIRE_ALLOWED_ORIGINS", ""), "comma-separated browser origins allowed besides the public URL's own (env TASKWIRE_ALLOWED_ORIGINS)")
	fs.StringVar(&c.LogLevel, "log-level", env("TASKWIRE_LOG_LEVEL", "info"), "debug, info, warn or error (env TASKWIRE_LOG_LEVEL)")
	c.metricsFlag(fs)
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", c.envDuration("TASKWIRE_SHUTDOWN_GRACE", 15*time.Second), "how long shutdown waits for calls in flight (env TASKWIRE_SHUTDOWN_GRACE)")
	fs.StringVar(&c.OperatorSecretFile, "operator-secret-file", env("TASKWIRE_OPERATOR_SECRET_FILE", ""), "file holding the platform operators' secret for the admin API (at least 32 bytes, mode 0600); it must exist (env TASKWIRE_OPERATOR_SECRET_FILE; default <data>/operator.secret, created on first start)")
	c.rateFlags(fs)
	c.limitFlags(fs)
	c.quotaFlags(fs)
	c.oidcFlag(fs)
	c.sessionFlags(fs)
	c.oauthFlags(fs)
	c.mailFlags(fs)
	fs.BoolVar(&c.Conformance, "conformance", env("TASKWIRE_CONFORMANCE", "") == "true", "also serve the MCP conformance suite's fixture tools, resources and prompts, and answer requests without a token as a read-only fixture member; loopback public URLs only (env TASKWIRE_CONFORMANCE=true)")
}

// metricsFlag declares --metrics-addr, off unless set: several processes
// on one machine would otherwise fight over a default port, and metrics
// belong on an address only the deployment's scraper reaches, never the
// public one.
func (c *config) metricsFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.MetricsAddr, "metrics-addr", env("TASKWIRE_METRICS_ADDR", ""), "serve Prometheus metrics at /metrics on this listen address, apart from the MCP port, e.g. 127.0.0.1:9092 (env TASKWIRE_METRICS_ADDR; default: not served)")
	c.pprofFlag(fs, "--metrics-addr")
}

// pprofFlag declares --pprof, which serves Go's profiles on the address
// named by where (the metrics port, or a worker's --http): never on the
// public port, and off unless asked for, since a profile shows the
// program's inner workings and costs CPU while it is taken.
func (c *config) pprofFlag(fs *flag.FlagSet, where string) {
	fs.BoolVar(&c.Pprof, "pprof", env("TASKWIRE_PPROF", "") == "true", "also serve Go's runtime profiles at /debug/pprof/ on the "+where+" address, e.g. for go tool pprof (env TASKWIRE_PPROF=true)")
}

// rateConfig is the rate limits of `serve`: calls a second and burst, per
// token and per tenant, each for every method and tool apart; a rate of 0
// turns its level off. The zero value has no limits.
type rateConfig struct {
	Token, Tenant           float64
	TokenBurst, TenantBurst int
	Replicas                int // front doors sharing the limits
}

// rateFlags declares the rate-limit flags: on by default, generous for
// an assistant at work, tight enough to stop a runaway loop.
func (c *config) rateFlags(fs *flag.FlagSet) {
	r := &c.Rate
	fs.Float64Var(&r.Token, "rate-token", c.envFloat("TASKWIRE_RATE_TOKEN", 10), "calls a second each token may make, to each method and tool apart; 0: no per-token limit (env TASKWIRE_RATE_TOKEN)")
	fs.IntVar(&r.TokenBurst, "rate-token-burst", c.envInt("TASKWIRE_RATE_TOKEN_BURST", 20), "calls a token may make at once, to each method and tool apart (env TASKWIRE_RATE_TOKEN_BURST)")
	fs.Float64Var(&r.Tenant, "rate-tenant", c.envFloat("TASKWIRE_RATE_TENANT", 50), "calls a second all tokens of a tenant may make together, to each method and tool apart; 0: no per-tenant limit (env TASKWIRE_RATE_TENANT)")
	fs.IntVar(&r.TenantBurst, "rate-tenant-burst", c.envInt("TASKWIRE_RATE_TENANT_BURST", 100), "calls all tokens of a tenant may make at once, to each method and tool apart (env TASKWIRE_RATE_TENANT_BURST)")
	fs.IntVar(&r.Replicas, "rate-replicas", c.envInt("TASKWIRE_RATE_REPLICAS", 1), "front doors serving the endpoint; each enforces this share of every limit (env TASKWIRE_RATE_REPLICAS)")
}

// envFloat returns the environment variable's value as a number, or def;
// a malformed value is kept for resolve to report, since flags are
// declared before anything can fail.
func (c *config) envFloat(name string, def float64) float64 {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		c.envErr = errors.Join(c.envErr, fmt.Errorf("%s=%q is not a number", name, v))
		return def
	}
	return f
}

// envInt is envFloat for whole numbers.
func (c *config) envInt(name string, def int) int {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		c.envErr = errors.Join(c.envErr, fmt.Errorf("%s=%q is not a whole number", name, v))
		return def
	}
	return n
}

// checkRates refuses rate flags that make no sense, naming the flag.
func (c *config) checkRates() error {
	r := c.Rate
	switch {
	case !(r.Token >= 0) || !(r.Tenant >= 0):
		return errors.New("--rate-token and --rate-tenant are calls a second: 0 or more")
	case r.Token > 0 && r.TokenBurst < 1:
		return fmt.Errorf("--rate-token-burst %d: want at least 1 call while --rate-token is set", r.TokenBurst)
	case r.Tenant > 0 && r.TenantBurst < 1:
		return fmt.Errorf("--rate-tenant-burst %d: want at least 1 call while --rate-tenant is set", r.TenantBurst)
	case r.Replicas < 0:
		return fmt.Errorf("--rate-replicas %d: want the number of front doors", r.Replicas)
	}
	return c.rateLimits().Validate()
}

// rateLimits is the front door's view of the rate flags.
func (c *config) rateLimits() frontdoor.RateLimits {
	r := c.Rate
	return frontdoor.RateLimits{
		Token:    frontdoor.RateLimit{PerSecond: r.Token, Burst: r.TokenBurst},
		Tenant:   frontdoor.RateLimit{PerSecond: r.Tenant, Burst: r.TenantBurst},
		Replicas: r.Replicas,
	}
}

// resolve fills the defaults that depend on other settings.
func (c *config) resolve(listenAddr string) error {
	if c.envErr != nil {
		return c.envErr
	}
	if err := c.checkRates(); err != nil {
		return err
	}
	if err := c.checkMaxTTL(); err != nil {
		return err
	}
	if err := c.checkLimits(); err != nil {
		return err
	}
	if err := c.checkQuota(); err != nil {
		return err
	}
	if err := c.checkSessions(); err != nil {
		return err
	}
	if err := c.checkOAuth(); err != nil {
		return err
	}
	if err := c.loadOIDC(); err != nil {
		return err
	}
	if err := c.loadMail(); err != nil {
		return err
	}
	if c.DB == "" {
		c.DB = c.ownDB()
	}
	if c.SigningKey == "" {
		c.SigningKey = filepath.Join(c.DataDir, "signing.key")
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + listenAddr
	}
	return c.checkPublicURL()
}

// ownDB is the database of the data directory: the default of --db.
func (c *config) ownDB() string { return "sqlite:" + filepath.Join(c.DataDir, dbFile) }

// defaultDataDir is --data's default, relative to where taskwire runs.
const defaultDataDir = "taskwire-data"

// dbFile is the SQLite database's file in the data directory.
const dbFile = "taskwire.db"

// checkPublicURL normalises the public URL, refusing one that is not an
// absolute http(s) URL, or not loopback with --conformance.
func (c *config) checkPublicURL() error {
	u, err := url.Parse(c.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--public-url %q must be an absolute http(s) URL, e.g. https://board.example.com", c.PublicURL)
	}
	c.PublicURL = strings.TrimSuffix(u.String(), "/")
	if c.Conformance && !loopback.Host(u.Hostname()) {
		return fmt.Errorf("--conformance opens the board to requests without a token, so it needs a loopback public URL (localhost, 127.0.0.1 or [::1]), not %q", c.PublicURL)
	}
	return nil
}

// retiredKeys are the key files of --retired-signing-keys.
func (c *config) retiredKeys() []string { return commaList(c.RetiredKeys) }

func (c *config) origins() []string { return commaList(c.AllowedOrigins) }

// commaList splits a comma-separated setting, dropping blanks.
func commaList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func (c *config) logLevel() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("--log-level %q: use debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}
