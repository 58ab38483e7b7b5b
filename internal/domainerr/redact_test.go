package domainerr_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
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
		{domainerr.Wrap(domainerr.NotFound, errors.New("cause"), "No comment #%d in tenant %s", 12, "acme"),
			"No comment #12 in tenant …"},
		{domainerr.Wrap(domainerr.Unavailable, errors.New("cause"), "database is down; try again"), "database is down; try again"},
		{domainerr.Prefix(domainerr.New(domainerr.Invalid, "label %q is %d characters long", title, 41), "%s[%d]: ", domainerr.Safe("tasks"), 3),
			`tasks[3]: label "…" is 41 characters long`},
		{fmt.Errorf("in a chain: %w", domainerr.New(domainerr.Invalid, "x %s", title)), "x …"},
		{errors.New("not a domain error"), ""},
	} {
		if got := domainerr.Redacted(tc.err); got != tc.want {
			t.Errorf("Redacted(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestPrefix: a prefixed error keeps the kind, the cause and the message
// after the prefix; an error that is no Error is left as it is.
func TestPrefix(t *testing.T) {
	inner := domainerr.New(domainerr.Invalid, "title is %d characters long", 301)
	err := domainerr.Prefix(fmt.Errorf("checking: %w", inner), "tasks[%d]: ", 3)
	if got, want := domainerr.Message(err), "tasks[3]: title is 301 characters long"; got != want {
		t.Errorf("Message(Prefix(…)) = %q, want %q", got, want)
	}
	if domainerr.KindOf(err) != domainerr.Invalid || !errors.Is(err, inner) {
		t.Errorf("Prefix(…) = %v of kind %v, want Invalid caused by %v", err, domainerr.KindOf(err), inner)
	}
	plain := errors.New("not a domain error")
	if got := domainerr.Prefix(plain, "tasks[%d]: ", 3); got != plain {
		t.Errorf("Prefix(plain) = %v, want it unchanged", got)
	}
}
