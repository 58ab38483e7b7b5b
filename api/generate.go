// Package api holds Taskwire's protobuf contracts and the Go generated from
// them. Regenerate with `go generate ./...` from the repository root; buf and
// the protoc plugins are pinned in tools.mod, so nothing needs installing.
package api

//go:generate sh -c "cd .. && go tool -modfile=tools.mod buf lint && go tool -modfile=tools.mod buf generate && go tool -modfile=tools.mod buf build --exclude-imports -o api/taskwire/v1/descriptor.binpb"
