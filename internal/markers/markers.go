// Package markers rewrites the generated part of a Markdown page: what
// lies between the comment markers
//
//	<!-- name:begin -->
//	<!-- name:end -->
//
// The commands that generate the pages' tables (the tools table, the
// flag tables) share it, so each says only what it writes.
package markers

import (
	"bytes"
	"errors"
	"fmt"
	"os"
)

// Begin and End are the markers named name.
func Begin(name string) string { return "<!-- " + name + ":begin -->" }
func End(name string) string   { return "<!-- " + name + ":end -->" }

// Splice replaces what lies between the markers named name in doc with
// body.
func Splice(doc []byte, name, body string) ([]byte, error) {
	beginMarker, endMarker := Begin(name), End(name)
	begin := bytes.Index(doc, []byte(beginMarker))
	end := bytes.Index(doc, []byte(endMarker))
	if begin < 0 || end < begin {
		return nil, errors.New("no " + beginMarker + " … " + endMarker + " markers in order")
	}
	var out bytes.Buffer
	out.Write(doc[:begin+len(beginMarker)])
	out.WriteString("\n" + body)
	out.Write(doc[end:])
	return out.Bytes(), nil
}

// Rewrite splices body into the page at path, leaving the file alone when
// it already holds body.
func Rewrite(path, name, body string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := Splice(old, name, body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(old, updated) {
		return nil
	}
	return os.WriteFile(path, updated, 0o644)
}
