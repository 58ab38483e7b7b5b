// Package safetext keeps text that people will read free of characters
// that make it display differently from what it says: control characters
// (an ANSI escape sequence can recolour or erase a terminal line), bidi
// controls ("Approve \u202Egnp.exe\u202C invoice" shows as "Approve
// exe.png invoice"), zero-width and other invisible characters, and
// Unicode tag characters (U+E0000–U+E007F), which no font shows but a
// model reads: the known ways to hide instructions from a person while the
// model follows them. Every text is also put in Unicode normalization form
// C, so that "é" typed as e + U+0301 and as U+00E9 is one string.
//
// One-line fields (titles, names, labels) refuse such characters with an
// error naming the character and where it is (Line), since the caller can
// fix the value; long text (notes, comments) has them removed (Block),
// since refusing a whole comment for one stray character helps nobody.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// Class names why a character is refused.
type Class string

// The classes of refused characters.
const (
	LineBreak  Class = "a line break"
	Control    Class = "a control character"
	Bidi       Class = "a bidi control, which can make text display in another order than it is stored"
	ZeroWidth  Class = "a zero-width character, which no one sees"
	Tag        Class = "a Unicode tag character, which no one sees"
	Invisible  Class = "an invisible formatting character"
	InvalidUTF Class = "a byte that is not valid UTF-8"
)

// Error reports the first character of a one-line field that Line refuses.
type Error struct {
	Field string // e.g. "title"
	Rune  rune   // utf8.RuneError for an invalid byte
	Pos   int    // 1-based, in characters of the text as given
	Class Class
}

func (e *Error) Error() string {
	what := "a byte that is not valid UTF-8"
	if e.Class != InvalidUTF {
		what = fmt.Sprintf("U+%04X %s (%s)", e.Rune, Name(e.Rune), e.Class)
	}
	fix := "remove it"
	if e.Class == LineBreak {
		fix = "keep " + e.Field + " to one line"
	}
	return fmt.Sprintf("%s has %s at character %d: %s", e.Field, what, e.Pos, fix)
}

// Classify returns why r may not appear in text a person reads, or "" when
// it may. Newline and tab are LineBreak and Control: Block keeps them.
func Classify(r rune) Class {
	switch {
	case r >= ' ' && r <= '~':
		return "" // printable ASCII, most of any text: skip the tables
	case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085':
		return LineBreak
	case unicode.Is(unicode.Cc, r):
		return Control // C0, DEL and C1
	case isBidi(r):
		return Bidi
	case isZeroWidth(r):
		return ZeroWidth
	case r >= 0xE0000 && r <= 0xE007F:
		return Tag
	case unicode.Is(unicode.Cf, r) || isFiller(r):
		return Invisible
	}
	return ""
}

// isBidi reports the explicit bidi formatting characters: embeddings and
// overrides, isolates, and the three marks.
func isBidi(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200E || r == 0x200F || r == 0x061C
}

// isZeroWidth reports the characters that take no room: zero-width space,
// non-joiner and joiner, word joiner, the byte order mark (zero-width
// no-break space) and the Mongolian vowel separator.
func isZeroWidth(r rune) bool {
	return (r >= 0x200B && r <= 0x200D) || r == 0x2060 || r == 0xFEFF || r == 0x180E
}

// isFiller reports the Hangul fillers, letters that render as nothing and
// so can pad a name to look like another.
func isFiller(r rune) bool {
	return r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0
}

// Line returns s trimmed of surrounding white space and in NFC, or an
// *Error naming the first character in between that one-line text may not
// hold: any Classify class, newline and tab included.
func Line(field, s string) (string, error) {
	start := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	end := len(strings.TrimRightFunc(s, unicode.IsSpace))
	if start >= end {
		return "", nil
	}
	pos := utf8.RuneCountInString(s[:start])
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(s[i:])
		pos++
		if r == utf8.RuneError && size == 1 {
			return "", &Error{Field: field, Rune: r, Pos: pos, Class: InvalidUTF}
		}
		if c := Classify(r); c != "" {
			return "", &Error{Field: field, Rune: r, Pos: pos, Class: c}
		}
		i += size
	}
	return norm.NFC.String(s[start:end]), nil
}

// Block returns long text s in NFC with every character Classify names
// removed, except newline and tab; line breaks (CR LF, CR, U+2028, U+2029,
// NEL) become "\n" and invalid UTF-8 becomes U+FFFD.
func Block(s string) string {
	if clean(s) {
		return norm.NFC.String(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch c := Classify(r); {
		case r == '\r' && i < len(s) && s[i] == '\n':
			// the "\n" comes next
		case c == LineBreak:
			b.WriteByte('\n')
		case r == '\t' || c == "":
			b.WriteRune(r) // RuneError too: U+FFFD for an invalid byte
		}
	}
	return norm.NFC.String(b.String())
}

// clean reports whether Block has nothing to remove or replace in s.
func clean(s string) bool {
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r == utf8.RuneError || Classify(r) != "" {
			return false
		}
	}
	return true
}

// Name returns the Unicode name of r, or the name of a control character,
// which the Unicode name list leaves as "<control>".
func Name(r rune) string {
	if int(r) < len(c0Names) {
		return c0Names[r]
	}
	switch {
	case r == 0x7F:
		return "DELETE"
	case r >= 0x80 && r <= 0x9F:
		return "C1 CONTROL"
	case r >= 0xE0000 && r <= 0xE007F && runenames.Name(r) == "":
		return "TAG"
	}
	return runenames.Name(r)
}

// c0Names are the names of the C0 controls, U+0000 to U+001F.
var c0Names = [...]string{
	"NULL", "START OF HEADING", "START OF TEXT", "END OF TEXT",
	"END OF TRANSMISSION", "ENQUIRY", "ACKNOWLEDGE", "BELL",
	"BACKSPACE", "CHARACTER TABULATION", "LINE FEED", "LINE TABULATION",
	"FORM FEED", "CARRIAGE RETURN", "SHIFT OUT", "SHIFT IN",
	"DATA LINK ESCAPE", "DEVICE CONTROL ONE", "DEVICE CONTROL TWO", "DEVICE CONTROL THREE",
	"DEVICE CONTROL FOUR", "NEGATIVE ACKNOWLEDGE", "SYNCHRONOUS IDLE", "END OF TRANSMISSION BLOCK",
	"CANCEL", "END OF MEDIUM", "SUBSTITUTE", "ESCAPE",
	"INFORMATION SEPARATOR FOUR", "INFORMATION SEPARATOR THREE", "INFORMATION SEPARATOR TWO", "INFORMATION SEPARATOR ONE",
}
