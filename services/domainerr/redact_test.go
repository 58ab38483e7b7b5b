package domainerr_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/taskwire/taskwire/services/domainerr"
)

func TestRedacted(t *testing.T) {
	title := "Fix the login page for Globex"
	for _, tc := range []struct {
		err  error
		want string
	}{
		{domainerr.New(domainerr.Conflict, "board %s already has %s (%s %q)", "main", "an open task", "T-4", title),
			`board … already has … (T-4 "…")`},
		{domainerr.New(domainerr.Invalid, "title is %d characters long, more than %d", 301, 300),
			"title is 301 characters long, more than 300"},
		{domainerr.New(domainerr.Invalid, "label %q is not valid", "secret plans"), `label "…" is not valid`},
		{domainerr.New(domainerr.PermissionDenied, "%s", domainerr.Safe("You are a viewer on tenant acme.")),
			"You are a viewer on tenant acme."},
		{domainerr.New(domainerr.Invalid, "refs %v, at %v, ok %t, x %.1f", []string{"T-1"}, time.Unix(0, 0), true, 1.5),
			"refs …, at …, ok true, x 1.5"},
		{domainerr.New(domainerr.Invalid, "ref %s is not a ref", "T-1 and more"), "ref … is not a ref"},
		{domainerr.Wrapf(domainerr.NotFound, errors.New("cause"), "No comment #%d in tenant %s", 12, "acme"),
			"No comment #12 in tenant …"},
		{domainerr.Wrap(domainerr.NotFound, errors.New("cause"), fmt.Sprintf("no board %q", title)), ""},
		{fmt.Errorf("in a chain: %w", domainerr.New(domainerr.Invalid, "x %s", title)), "x …"},
		{errors.New("not a domain error"), ""},
	} {
		if got := domainerr.Redacted(tc.err); got != tc.want {
			t.Errorf("Redacted(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
