package tenancy

import (
	"unicode/utf8"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/safetext"
)

// MaxName is the longest display name of a tenant, member or board, in
// characters.
const MaxName = 100

// cleanName returns a display name trimmed and in NFC, or an Invalid error
// naming a character people could not see or that would garble a listing
// (safetext.Line), or saying it is too long.
func cleanName(what, v string) (string, error) {
	v, err := safetext.Line(what, v)
	if err != nil {
		return "", domainerr.New(domainerr.Invalid, "%s", domainerr.Safe(err.Error()))
	}
	if n := utf8.RuneCountInString(v); n > MaxName {
		return "", domainerr.New(domainerr.Invalid, "%s is %d characters long, more than %d: shorten it", domainerr.Safe(what), n, MaxName)
	}
	return v, nil
}
