// Package node assembles Taskwire's processes from its packages: a worker
// node (the gRPC services over the database), a front door node (MCP and
// the admin API over HTTP, calling workers over gRPC), and the System that
// `taskwire serve` runs, both in one process. Each is built from a Config
// with Validate, started, and stopped with a drain: health turns
// NOT_SERVING, calls in flight get the shutdown grace, then the rest are
// cut. WorkerProcess and FrontdoorProcess add what the worker and
// frontdoor commands open themselves (database, NATS, keys, probes,
// metrics). The command in cmd/taskwire only turns flags and environment
// into these configurations, as nats-server's main calls server.NewServer.
//
// Tests start these through node/nodetest.
package node
