package main

import (
	"log/slog"
	"net"

	"github.com/taskwire/taskwire/node"
)

// system is the configuration of `taskwire serve`'s system, from the
// flags resolved, serving on ln and logging to log.
func (c *config) system(ln net.Listener, log *slog.Logger) node.SystemConfig {
	secret, create := c.operatorSecretPath()
	return node.SystemConfig{
		Listener: ln, DataDir: c.DataDir, DB: c.DB, SigningKey: c.SigningKey, RetiredKeys: c.retiredKeys(),
		PublicURL: c.PublicURL, NATS: c.NATS, NATSListen: c.NATSListen, AllowedOrigins: c.origins(),
		MetricsAddr: c.MetricsAddr, Pprof: c.Pprof, ShutdownGrace: c.ShutdownGrace, MaxTokenTTL: c.MaxTokenTTL,
		Conformance: c.Conformance, RateLimits: c.rateLimits(), ListenLimits: c.listenLimits(),
		AdminRateLimits: c.adminRateLimits(), AuthThrottle: c.authThrottle(), Quota: c.Quota, Sessions: c.Sessions, OAuth: c.OAuth, Mail: c.mail, OIDCProviders: c.oidc,
		OperatorSecretFile: secret, CreateOperatorSecret: create, Log: log, Version: version,
	}
}

// workerProcess is the configuration of `taskwire worker`, from the flags
// resolved.
func (c *nodeConfig) workerProcess() node.WorkerProcessConfig {
	return node.WorkerProcessConfig{
		DB: c.DB, Migrate: c.Migrate, NATS: c.NATS, InternalKeyFile: c.InternalKeyFile,
		SigningKey: c.SigningKey, RetiredKeys: c.retiredKeys(), PublicURL: c.PublicURL,
		Listen: c.Listen, HTTPAddr: c.HTTPAddr, Pprof: c.Pprof, ShutdownGrace: c.ShutdownGrace,
		Conformance: c.Conformance, MaxTokenTTL: c.MaxTokenTTL, Quota: c.Quota, MaxConnectionAge: c.MaxConnectionAge,
		Sessions: c.Sessions, OAuth: c.OAuth, Mail: c.mail,
	}
}

// frontdoorProcess is the configuration of `taskwire frontdoor`, from the
// flags resolved.
func (c *nodeConfig) frontdoorProcess() node.FrontdoorProcessConfig {
	return node.FrontdoorProcessConfig{
		Node: node.FrontdoorConfig{
			PublicURL: c.PublicURL, AllowedOrigins: c.origins(), Worker: c.Workers, Conformance: c.Conformance,
			RateLimits: c.rateLimits(), MaxTokenTTL: c.MaxTokenTTL, ListenLimits: c.listenLimits(),
			AdminRateLimits: c.adminRateLimits(), AuthThrottle: c.authThrottle(), Version: version,
			OIDCProviders: c.oidc,
		},
		Addr: c.Addr, NATS: c.NATS, InternalKeyFile: c.InternalKeyFile, SigningKey: c.SigningKey,
		RetiredKeys: c.retiredKeys(), OperatorSecretFile: c.OperatorSecretFile, MetricsAddr: c.MetricsAddr, Pprof: c.Pprof,
	}
}
