package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// The configuration of the commands of a scaled-out deployment: worker,
// frontdoor and migrate. Unlike serve, they create nothing on start and
// default nothing that every process of a deployment must share: the
// public URL, the root key, the internal key and NATS are named, and a
// process missing one refuses to start.

// nodeConfig is what the worker and frontdoor commands read beyond
// config.
type nodeConfig struct {
	config
	InternalKeyFile string // the key front doors present to workers
	Workers         string // frontdoor: the workers' gRPC target or list
	Listen          string // worker: the gRPC listen address
	HTTPAddr        string // worker: the probes' listen address
	Migrate         bool   // worker: migrate the schema before serving

	// MaxConnectionAge (worker) closes each front door's connection after
	// about this long, so front doors following a DNS name re-resolve it
	// and spread their calls onto workers added since; 0: never.
	MaxConnectionAge time.Duration
}

// nodeFlags declares the flags worker and frontdoor share.
func (c *nodeConfig) nodeFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.PublicURL, "public-url", env("TASKWIRE_PUBLIC_URL", ""), "URL clients use to reach the deployment, e.g. https://board.example.com; tokens are bound to it (env TASKWIRE_PUBLIC_URL; required)")
	fs.StringVar(&c.SigningKey, "signing-key", env("TASKWIRE_SIGNING_KEY", ""), "the deployment's root Ed25519 key file (PKCS#8 PEM), the same on every worker and front door; it must exist (env TASKWIRE_SIGNING_KEY; required)")
	fs.StringVar(&c.RetiredKeys, "retired-signing-keys", env("TASKWIRE_RETIRED_SIGNING_KEYS", ""), "comma-separated root key files rotated out (env TASKWIRE_RETIRED_SIGNING_KEYS)")
	fs.StringVar(&c.NATS, "nats", env("TASKWIRE_NATS", ""), "NATS server URL, e.g. nats://nats:4222 (env TASKWIRE_NATS; required)")
	fs.StringVar(&c.InternalKeyFile, "internal-key-file", env("TASKWIRE_INTERNAL_KEY_FILE", ""), "file holding the key front doors present to workers, the same on every one (at least 32 bytes, mode 0600) (env TASKWIRE_INTERNAL_KEY_FILE; required)")
	fs.StringVar(&c.LogLevel, "log-level", env("TASKWIRE_LOG_LEVEL", "info"), "debug, info, warn or error (env TASKWIRE_LOG_LEVEL)")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", c.envDuration("TASKWIRE_SHUTDOWN_GRACE", 15*time.Second), "on SIGTERM, how long calls in flight (worker) or open requests and streams (front door) get to finish (env TASKWIRE_SHUTDOWN_GRACE)")
	fs.BoolVar(&c.Conformance, "conformance", env("TASKWIRE_CONFORMANCE", "") == "true", "also serve the MCP conformance suite's fixtures; loopback public URLs only; set it on workers and front doors alike (env TASKWIRE_CONFORMANCE=true)")
	c.maxTTLFlag(fs)
}

// workerFlags declares the flags of `taskwire worker`.
func (c *nodeConfig) workerFlags(fs *flag.FlagSet) {
	c.nodeFlags(fs)
	fs.StringVar(&c.DB, "db", env("TASKWIRE_DB", ""), "database: postgres://… or sqlite:<path> (env TASKWIRE_DB; required)")
	fs.StringVar(&c.Listen, "listen", env("TASKWIRE_LISTEN", "127.0.0.1:9090"), "gRPC listen address, for front doors (env TASKWIRE_LISTEN)")
	fs.StringVar(&c.HTTPAddr, "http", env("TASKWIRE_HTTP", "127.0.0.1:9091"), "listen address of the /healthz and /readyz probes and the Prometheus /metrics; empty: none (env TASKWIRE_HTTP)")
	c.pprofFlag(fs, "--http")
	fs.DurationVar(&c.MaxConnectionAge, "max-connection-age", c.envDuration("TASKWIRE_MAX_CONNECTION_AGE", 5*time.Minute), "ask front doors to reconnect after about this long (calls in flight get --shutdown-grace to finish), so that those following a DNS name find workers added since; 0: never (env TASKWIRE_MAX_CONNECTION_AGE)")
	c.quotaFlags(fs)
	c.sessionFlags(fs)
	c.oauthFlags(fs)
	c.mailFlags(fs)
	fs.BoolVar(&c.Migrate, "migrate", env("TASKWIRE_MIGRATE", "") == "true", "migrate the schema before serving, for a single worker in development; deployments run `taskwire migrate` once before a rollout instead (env TASKWIRE_MIGRATE=true)")
}

// frontdoorFlags declares the flags of `taskwire frontdoor`.
func (c *nodeConfig) frontdoorFlags(fs *flag.FlagSet) {
	c.nodeFlags(fs)
	fs.StringVar(&c.Addr, "addr", env("TASKWIRE_ADDR", "127.0.0.1:8080"), "HTTP listen address (env TASKWIRE_ADDR)")
	fs.StringVar(&c.Workers, "workers", env("TASKWIRE_WORKERS", ""), "the workers: host:port[,host:port…], or dns:///name:port to follow a DNS name (a headless service) (env TASKWIRE_WORKERS; required)")
	fs.StringVar(&c.AllowedOrigins, "allowed-origins", env("TASKWIRE_ALLOWED_ORIGINS", ""), "comma-separated browser origins allowed besides the public URL's own (env TASKWIRE_ALLOWED_ORIGINS)")
	fs.StringVar(&c.OperatorSecretFile, "operator-secret-file", env("TASKWIRE_OPERATOR_SECRET_FILE", ""), "file holding the platform operators' secret for the admin API (at least 32 bytes, mode 0600); none: the admin API takes admin tokens only (env TASKWIRE_OPERATOR_SECRET_FILE)")
	c.metricsFlag(fs)
	c.rateFlags(fs)
	c.limitFlags(fs)
	c.oidcFlag(fs)
}

// envDuration is envFloat for durations.
func (c *config) envDuration(name string, def time.Duration) time.Duration {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		c.envErr = errors.Join(c.envErr, fmt.Errorf("%s=%q is not a duration (e.g. 30s)", name, v))
		return def
	}
	return d
}

// resolveNode checks a worker's or front door's settings: the shared
// ones, and those of required (flag name → value) besides.
func (c *nodeConfig) resolveNode(required map[string]string) error {
	if c.envErr != nil {
		return c.envErr
	}
	var missing []string
	for _, r := range []struct{ flag, value string }{
		{"--public-url", c.PublicURL}, {"--signing-key", c.SigningKey}, {"--nats", c.NATS}, {"--internal-key-file", c.InternalKeyFile},
	} {
		if r.value == "" {
			missing = append(missing, r.flag)
		}
	}
	for flag, value := range required {
		if value == "" {
			missing = append(missing, flag)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s (or their environment variables): every process of a deployment must be told them", strings.Join(missing, ", "))
	}
	if c.ShutdownGrace <= 0 {
		return fmt.Errorf("--shutdown-grace %v: want a positive duration", c.ShutdownGrace)
	}
	if err := c.checkMaxTTL(); err != nil {
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
	return c.checkPublicURL()
}
