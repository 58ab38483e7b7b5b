package catalog

// The tools table of docs/tools.md is generated from the same contract the
// front door builds its catalogue from; CI regenerates it and fails on any
// diff.

//go:generate go run ./internal/toolstable -doc ../../docs/tools.md
