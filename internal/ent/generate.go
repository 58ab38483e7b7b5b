// Package ent holds Taskwire's data model: the schema in ./schema and the
// code ent generates from it. Regenerate with `go generate ./ent`.
package ent

//go:generate go tool ent generate --feature privacy,entql --template ./template ./schema
