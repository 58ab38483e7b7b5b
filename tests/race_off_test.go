//go:build !race

package tests

// raceEnabled: the race detector is on, which makes stack frames larger.
const raceEnabled = false
