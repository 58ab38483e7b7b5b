package catalog

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ArgumentsError reports tool arguments that do not fit the tool's
// inputSchema. Problems says what is wrong with each, in a sentence that
// starts with the argument's place (e.g. "tasks[2].title is missing").
// The protocol makes this a tool execution error: a result with isError
// that the model reads and can act on, not a JSON-RPC error.
type ArgumentsError struct {
	Tool     string
	Problems []string
}

func (e *ArgumentsError) Error() string {
	return fmt.Sprintf("invalid arguments for tool %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

// Text is what the model reads: what was wrong, and that nothing was done.
func (e *ArgumentsError) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Nothing was done: the arguments do not fit the inputSchema of %s.\n", e.Tool)
	for _, p := range e.Problems {
		b.WriteString("- " + p + ".\n")
	}
	fmt.Fprintf(&b, "Fix them and call %s again.", e.Tool)
	return b.String()
}

// problems flattens a validation error to its leaves, each as a sentence
// about the place in the arguments it concerns.
func problems(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, problem(e.InstanceLocation, e.ErrorKind)...)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(out)
	return slices.Compact(out)
}

// problem says what kind k of error at loc means for the caller.
func problem(loc []string, k jsonschema.ErrorKind) []string {
	at := place(loc)
	switch k := k.(type) {
	case *kind.Required:
		var out []string
		for _, m := range k.Missing {
			out = append(out, place(append(slices.Clone(loc), m))+" is missing: it is required")
		}
		return out
	case *kind.AdditionalProperties:
		var out []string
		for _, p := range k.Properties {
			out = append(out, place(append(slices.Clone(loc), p))+" is not an argument of this tool: remove it, or check its spelling in the inputSchema")
		}
		return out
	case *kind.Type:
		return []string{fmt.Sprintf("%s must be %s, not %s", at, orList(k.Want), article(k.Got))}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = quoteValue(w)
		}
		return []string{fmt.Sprintf("%s must be one of %s, not %s", at, strings.Join(want, ", "), quoteValue(k.Got))}
	case *kind.Minimum:
		return []string{fmt.Sprintf("%s must be at least %s, not %s", at, ratString(k.Want), ratString(k.Got))}
	case *kind.Maximum:
		return []string{fmt.Sprintf("%s must be at most %s, not %s", at, ratString(k.Want), ratString(k.Got))}
	case *kind.MinItems:
		return []string{fmt.Sprintf("%s must hold at least %d items, not %d", at, k.Want, k.Got)}
	case *kind.MaxItems:
		return []string{fmt.Sprintf("%s must hold at most %d items, not %d: send the rest in another call", at, k.Want, k.Got)}
	case *kind.MinLength:
		return []string{fmt.Sprintf("%s must be at least %d characters long, not %d", at, k.Want, k.Got)}
	case *kind.MaxLength:
		return []string{fmt.Sprintf("%s must be at most %d characters long, not %d", at, k.Want, k.Got)}
	case *kind.Format:
		if k.Want == "date-time" {
			return []string{at + ` must be a time in RFC 3339 form between the years 1 and 9999, e.g. "2026-12-01T09:30:00Z" or "2026-12-01T10:30:00+01:00"`}
		}
		return []string{fmt.Sprintf("%s must be in %s form", at, k.Want)}
	}
	return []string{at + ": " + k.LocalizedString(printer)}
}

// place writes a location in the arguments as a model would name it:
// "tasks[2].title"; the whole arguments object is "the arguments".
func place(loc []string) string {
	if len(loc) == 0 {
		return "the arguments"
	}
	var b strings.Builder
	for i, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil && i > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// orList writes JSON types as "an integer or a string".
func orList(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = article(t)
	}
	return strings.Join(out, " or ")
}

func article(jsonType string) string {
	switch jsonType {
	case "integer", "object", "array":
		return "an " + jsonType
	case "null":
		return "null"
	}
	return "a " + jsonType
}

// quoteValue writes a JSON value the caller sent or may send, shortened:
// the point is to show which value, not to echo a page of text.
func quoteValue(v any) string {
	const most = 40
	s, ok := v.(string)
	if !ok {
		return fmt.Sprint(v)
	}
	if utf8.RuneCountInString(s) > most {
		s = string([]rune(s)[:most]) + "…"
	}
	return strconv.Quote(s)
}

// ratString writes a bound or a value of a number check: an integer as
// one, anything else as a decimal.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(6)
}
