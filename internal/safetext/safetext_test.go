package safetext

import (
	"errors"
	"strings"
	"testing"
	"unicode"
)

// hidden is one character of each class a person cannot see as it is
// read, with where Line must find it in "ab" + char + "cd".
var hidden = []struct {
	name  string
	char  string
	class Class
	named string // the character's name in the error
}{
	{"NUL", "\x00", Control, "NULL"},
	{"C0 bell", "\a", Control, "BELL"},
	{"ANSI escape sequence", "\x1b[2K", Control, "ESCAPE"},
	{"DEL", "\x7f", Control, "DELETE"},
	{"C1 CSI", "\u009b", Control, "C1 CONTROL"},
	{"tab", "\t", Control, "CHARACTER TABULATION"},
	{"newline", "\n", LineBreak, "LINE FEED"},
	{"carriage return", "\r", LineBreak, "CARRIAGE RETURN"},
	{"line separator", "\u2028", LineBreak, "LINE SEPARATOR"},
	{"bidi override", "\u202e", Bidi, "RIGHT-TO-LEFT OVERRIDE"},
	{"bidi embedding", "\u202b", Bidi, "RIGHT-TO-LEFT EMBEDDING"},
	{"bidi isolate", "\u2067", Bidi, "RIGHT-TO-LEFT ISOLATE"},
	{"pop isolate", "\u2069", Bidi, "POP DIRECTIONAL ISOLATE"},
	{"right-to-left mark", "\u200f", Bidi, "RIGHT-TO-LEFT MARK"},
	{"Arabic letter mark", "\u061c", Bidi, "ARABIC LETTER MARK"},
	{"zero-width space", "\u200b", ZeroWidth, "ZERO WIDTH SPACE"},
	{"zero-width joiner", "\u200d", ZeroWidth, "ZERO WIDTH JOINER"},
	{"word joiner", "\u2060", ZeroWidth, "WORD JOINER"},
	{"BOM", "\ufeff", ZeroWidth, "ZERO WIDTH NO-BREAK SPACE"},
	{"Mongolian vowel separator", "\u180e", ZeroWidth, "MONGOLIAN VOWEL SEPARATOR"},
	{"tag letter", "\U000E0041", Tag, "TAG LATIN CAPITAL LETTER A"},
	{"cancel tag", "\U000E007F", Tag, "CANCEL TAG"},
	{"unassigned tag", "\U000E0000", Tag, "TAG"},
	{"soft hyphen", "\u00ad", Invisible, "SOFT HYPHEN"},
	{"invisible times", "\u2062", Invisible, "INVISIBLE TIMES"},
	{"Hangul filler", "\u3164", Invisible, "HANGUL FILLER"},
}

// TestClassifyASCII: of ASCII, Classify lets through exactly the
// printable characters, space included.
func TestClassifyASCII(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		if ok := Classify(r) == ""; ok != unicode.IsPrint(r) {
			t.Errorf("Classify(%U) = %q, want it refused exactly when unicode.IsPrint is false (%v)", r, Classify(r), unicode.IsPrint(r))
		}
	}
}

func TestLineRefusesEachClass(t *testing.T) {
	for _, tc := range hidden {
		_, err := Line("title", "ab"+tc.char+"cd")
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: Line = %v, want an *Error", tc.name, err)
			continue
		}
		if e.Pos != 3 || e.Class != tc.class || e.Field != "title" {
			t.Errorf("%s: Line error = %+v, want position 3, class %q, field title", tc.name, e, tc.class)
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.named) || !strings.Contains(msg, "character 3") || !strings.HasPrefix(msg, "title ") {
			t.Errorf("%s: message %q, want it to name %s at character 3 of title", tc.name, msg, tc.named)
		}
	}
}

func TestLinePositionCountsCharacters(t *testing.T) {
	// The example: U+202E is the 9th character ("Approve " is 8).
	_, err := Line("title", "Approve \u202egnp.exe\u202c invoice")
	var e *Error
	if !errors.As(err, &e) || e.Pos != 9 || e.Rune != 0x202E {
		t.Fatalf("Line = %v, want U+202E at character 9", err)
	}
	want := "title has U+202E RIGHT-TO-LEFT OVERRIDE (" + string(Bidi) + ") at character 9: remove it"
	if err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	// Characters, not bytes, and counted in the text as given, leading
	// white space included.
	if _, err := Line("name", "  日本\u200b"); !errors.As(err, &e) || e.Pos != 5 {
		t.Errorf("Line(%q) = %v, want character 5", "  日本\u200b", err)
	}
	if _, err := Line("name", "a\xffb"); !errors.As(err, &e) || e.Pos != 2 || e.Class != InvalidUTF {
		t.Errorf("Line(invalid UTF-8) = %v, want an invalid byte at character 2", err)
	}
}

func TestLineTrimsAndNormalizes(t *testing.T) {
	for in, want := range map[string]string{
		"  Cafe\u0301 menu \n": "Café menu", // e + combining acute → é; the line break is outside the text
		"\tplain":              "plain",
		"Ωhm ﬁx":               "Ωhm ﬁx", // NFC keeps compatibility characters
		"":                     "",
		" \n ":                 "",
		"日本語 ok":               "日本語 ok",
		"👍 done":               "👍 done",
	} {
		got, err := Line("title", in)
		if err != nil || got != want {
			t.Errorf("Line(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestLineBreakSaysOneLine(t *testing.T) {
	_, err := Line("title", "first\nsecond")
	if err == nil || !strings.Contains(err.Error(), "keep title to one line") {
		t.Errorf("Line with a newline = %v, want a message saying to keep title to one line", err)
	}
}

func TestBlockRemovesEachClass(t *testing.T) {
	for _, tc := range hidden {
		in := "ab" + tc.char + "cd"
		want := "abcd"
		switch tc.char {
		case "\t":
			want = in
		case "\n", "\r", "\u2028":
			want = "ab\ncd"
		case "\x1b[2K":
			want = "ab[2Kcd" // the escape goes; what it introduced is plain text
		}
		if got := Block(in); got != want {
			t.Errorf("%s: Block(%q) = %q, want %q", tc.name, in, got, want)
		}
	}
}

func TestBlock(t *testing.T) {
	for in, want := range map[string]string{
		"line one\r\nline two\rthree": "line one\nline two\nthree",
		"- item\n\t- nested\n":        "- item\n\t- nested\n",
		"re\u0301sume\u0301":          "résumé",
		"bad \xff byte":               "bad \ufffd byte",
		"":                            "",
		"Approve \u202egnp.exe\u202c": "Approve gnp.exe",
		"hidden\U000E0049\U000E0047\U000E004E\U000E004F\U000E0052\U000E0045 text": "hidden text",
	} {
		if got := Block(in); got != want {
			t.Errorf("Block(%q) = %q, want %q", in, got, want)
		}
	}
}

// Nothing Block returns is refused by Line line by line, and Block is
// idempotent.
func FuzzBlock(f *testing.F) {
	for _, tc := range hidden {
		f.Add("ab" + tc.char + "cd\r\n")
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Block(s)
		if Block(out) != out {
			t.Errorf("Block(Block(%q)) = %q, want %q", s, Block(out), out)
		}
		for _, line := range strings.Split(out, "\n") {
			for _, part := range strings.Split(line, "\t") {
				if _, err := Line("text", part); err != nil {
					t.Errorf("Block(%q) = %q, whose line %q Line refuses: %v", s, out, part, err)
				}
			}
		}
	})
}
