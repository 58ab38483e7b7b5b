package schema

import "time"

// now is the default of every timestamp: UTC, to the microsecond, which is
// what PostgreSQL keeps, so a value returned by a write equals the value
// read back later on every backend.
func now() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}
