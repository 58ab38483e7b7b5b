package node

import (
	"fmt"
	"strings"
)

// setting is one setting a Validate requires, and whether it is set.
type setting struct {
	name string
	set  bool
}

// requireAll names every required setting of what that is not set, so
// that one failed start tells all that is missing instead of one a time.
func requireAll(what string, settings ...setting) error {
	var missing []string
	for _, s := range settings {
		if !s.set {
			missing = append(missing, s.name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s: missing %s", what, strings.Join(missing, ", "))
}
