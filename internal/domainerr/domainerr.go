// Package domainerr holds the kinds of failure the services report. Each
// boundary translates them once: ent errors become kinds in the services,
// kinds become gRPC codes in the worker, and codes become tool results or
// JSON-RPC errors in the front door.
package domainerr

import (
	"errors"
	"fmt"
	"slices"
)

// Kind classifies a failure by what the caller can do about it.
type Kind int

// The kinds of failure.
const (
	Internal         Kind = iota // a bug or an outage; the message is not shown
	Invalid                      // a bad argument value; fix the argument
	NotFound                     // no such thing in this tenant
	Conflict                     // the thing changed meanwhile or already exists
	PermissionDenied             // the caller may not do this
	Unauthenticated              // the caller is not known
	Unavailable                  // try again later
	Exhausted                    // a quota is used up; free some or ask for more
)

func (k Kind) String() string {
	switch k {
	case Invalid:
		return "invalid"
	case NotFound:
		return "not found"
	case Conflict:
		return "conflict"
	case PermissionDenied:
		return "permission denied"
	case Unauthenticated:
		return "unauthenticated"
	case Unavailable:
		return "unavailable"
	case Exhausted:
		return "exhausted"
	}
	return "internal"
}

// Error is a failure with a kind and a message written for the caller (a
// person or a model): it says what went wrong and what to do instead.
type Error struct {
	Kind Kind
	Msg  string
	Err  error // the cause, for logs; never shown to callers

	// format and args made Msg, kept so that Redacted can write the
	// sentence without the values.
	format string
	args   []any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an Error of kind k with a formatted message.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...), format: format, args: args}
}

// Wrap returns an Error of kind k with a formatted message and cause err.
// Like New it takes the values apart from the sentence, so that Redacted
// can leave them out: never format the message beforehand (go vet says
// so of a format that is not a constant).
func Wrap(k Kind, err error, format string, args ...any) *Error {
	e := New(k, format, args...)
	e.Err = err
	return e
}

// Prefix returns the first Error in err's chain with format and args
// before its message, its redacted form too, as an Error of the same kind
// caused by err: what is wrong with one part of a request, said of the
// whole ("tasks[3]: " before a draft's refusal). Any other err is
// returned as it is.
func Prefix(err error, format string, args ...any) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	return Wrap(e.Kind, err, format+e.format, append(slices.Clip(args), e.args...)...)
}

// KindOf returns the kind of err: the kind of the first *Error in its chain,
// or Internal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Message returns the caller-facing message of err, or "" for an error that
// carries none.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return ""
}
