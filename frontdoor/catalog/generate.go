package catalog

// The README's tools table is generated from the same contract the front
// door builds its catalogue from; CI regenerates it and fails on any diff.

//go:generate go run ./internal/toolstable -readme ../../README.md
