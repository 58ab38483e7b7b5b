// Package tests holds Taskwire's system tests: whole deployments started
// in process or as processes of the built binary, driven over MCP and the
// admin API as clients drive them (roles, revocation, audit, tenant
// isolation, scale-out, key rotation, limits, the legacy protocol, …).
// They start what they test through node/nodetest, which other packages'
// tests use too. The tests of the command's flags and output live beside
// it in cmd/taskwire; those of single packages beside those packages.
//
// With TASKWIRE_TEST_POSTGRES and TASKWIRE_TEST_NATS set, every test that
// runs on both deployments runs on PostgreSQL with a NATS server as well
// as on SQLite with NATS in process.
package tests
