//go:build !race

package main

// raceEnabled: the race detector is on, which makes stack frames larger.
const raceEnabled = false
