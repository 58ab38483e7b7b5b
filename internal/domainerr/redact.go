package domainerr

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
)

// Safe is a value for a message that holds nothing a caller or a task
// supplied (a sentence the platform wrote from roles, tool names and
// slugs): Redacted keeps it.
type Safe string

// elided stands for a value Redacted leaves out.
const elided = "…"

// taskRef is the shape of a task ref ("T-12"), which Redacted keeps: it
// names a task without saying anything of it.
var taskRef = regexp.MustCompile(`^T-[0-9]{1,10}$`)

// Redacted returns e's message as the audit log keeps it: the sentence
// with every value a caller or a task could have written (titles, notes,
// labels, names, whatever a caller sent) replaced by "…". Numbers, task
// refs and Safe values are kept.
func (e *Error) Redacted() string {
	args := make([]any, len(e.args))
	for i, a := range e.args {
		args[i] = redactArg(a)
	}
	return fmt.Sprintf(e.format, args...)
}

// Redacted returns the redacted message (see Error.Redacted) of the first
// Error in err's chain; "" when there is none.
func Redacted(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Redacted()
	}
	return ""
}

// redactArg returns a, when it may stay in a redacted message, or elided.
func redactArg(a any) any {
	switch v := a.(type) {
	case Safe:
		return string(v)
	case string:
		if taskRef.MatchString(v) {
			return v
		}
		return elided
	case nil:
		return elided
	}
	switch reflect.TypeOf(a).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Bool:
		if _, ok := a.(fmt.Stringer); !ok { // a Stringer may write text
			return a
		}
	}
	return elided
}
