package board

import (
	"errors"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/safetext"
)

// line is safetext.Line with its refusal as an Invalid error: one-line
// text (titles, labels, projects, board names) trimmed and in NFC, or why
// a character in it may not be there.
// A line break gets breakHint after the refusal, e.g. where longer text
// belongs.
func line(field, s string, breakHint ...string) (string, error) {
	out, err := safetext.Line(field, s)
	var se *safetext.Error
	switch {
	case errors.As(err, &se) && se.Class == safetext.LineBreak && len(breakHint) > 0:
		return "", domainerr.New(domainerr.Invalid, "%s and %s", domainerr.Safe(err.Error()), domainerr.Safe(breakHint[0]))
	case err != nil:
		return "", domainerr.New(domainerr.Invalid, "%s", domainerr.Safe(err.Error()))
	}
	return out, nil
}
