package main

import (
	"regexp"
	"strconv"
	"strings"
)

// flagDoc is one flag as the flag package's PrintDefaults shows it.
type flagDoc struct {
	name    string
	typ     string // the value's type as printed; empty for a boolean
	env     string // the environment variable the usage names, if any
	def     string // the default, as printed
	literal bool   // def is a value (from PrintDefaults), not a sentence
	usage   string // the usage without the env and default notes
}

var (
	// printedDefault is what PrintDefaults appends to a usage whose flag
	// has a default other than the zero value, or what a usage says itself.
	printedDefault = regexp.MustCompile(` \(default ("(?:[^"\\]|\\.)*"|[^()]*)\)$`)
	// envNote is how taskwire's usages name the variable: "(env NAME)",
	// "(env NAME=true)" or "(env NAME; default …)".
	envNote = regexp.MustCompile(` ?\(env ([A-Z0-9_]+(?:=[a-z]+)?)(?:; ([^()]*(?:\([^()]*\)[^()]*)*))?\)`)
)

// parseDefaults reads the flags from the output of PrintDefaults inside a
// command's help: a line "  -name type" (or "  -x\tusage" for a one-letter
// boolean), then the usage on lines indented by four spaces and a tab.
// Lines outside such entries are ignored.
func parseDefaults(help string) []flagDoc {
	var out []flagDoc
	var cur *flagDoc
	var usage []string
	flush := func() {
		if cur != nil {
			out = append(out, finish(*cur, strings.Join(usage, " ")))
		}
		cur, usage = nil, nil
	}
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(line, "  -") && len(line) > 3 && line[3] != '-' && line[3] != ' ':
			flush()
			head, rest, _ := strings.Cut(line[3:], "\t")
			name, typ, _ := strings.Cut(head, " ")
			cur = &flagDoc{name: name, typ: typ}
			if rest != "" {
				usage = append(usage, strings.TrimSpace(rest))
			}
		case cur != nil && strings.HasPrefix(line, "    \t"):
			usage = append(usage, strings.TrimSpace(line))
		default:
			flush()
		}
	}
	flush()
	return out
}

// finish takes the env and default notes out of f's usage u.
func finish(f flagDoc, u string) flagDoc {
	if m := printedDefault.FindStringSubmatch(u); m != nil {
		u = u[:len(u)-len(m[0])]
		// PrintDefaults quotes a string and prints other values bare; a
		// default a usage states itself in words is no value.
		f.def, f.literal = m[1], !strings.Contains(m[1], " ")
		if s, err := strconv.Unquote(m[1]); err == nil {
			f.def, f.literal = s, true
		}
	}
	if m := envNote.FindStringSubmatch(u); m != nil {
		u = strings.Replace(u, m[0], "", 1)
		f.env = m[1]
		if strings.HasSuffix(f.env, "=true") {
			f.typ = "" // a boolean, whatever PrintDefaults took from a quoted word
		}
		if f.def == "" && m[2] != "" {
			f.def = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(m[2], "default"), ":"), " ")
		}
	}
	f.usage = strings.TrimSpace(strings.ReplaceAll(u, " ;", ";"))
	return f
}
