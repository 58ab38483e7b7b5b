// Package worklimits holds the limits of work approved for assistants:
// the board enforces them, and the console shows them (the defaults of
// an assistant's proposal, the bounds of the approval form).
package worklimits

// Limits of approved work.
const (
	MaxPlan             = 10000 // characters of a plan
	DefaultLeaseMinutes = 30
	MaxLeaseMinutes     = 240
	DefaultMaxClaims    = 3
	MaxMaxClaims        = 20
)
