package taskdb

import "testing"

func TestParseRef(t *testing.T) {
	for ref, want := range map[string]int{"T-1": 1, "T-120": 120, "T-0": 0, "12": 0, "T-x": 0} {
		got, err := ParseRef(ref)
		if want == 0 && err == nil {
			t.Errorf("ParseRef(%q) = %d, want an error", ref, got)
		}
		if want != 0 && got != want {
			t.Errorf("ParseRef(%q) = %d, %v, want %d", ref, got, err, want)
		}
	}
}

func TestPageRefusesABadCursor(t *testing.T) {
	var d DB // a bad cursor is refused before the database is asked
	if _, _, err := d.Page(t.Context(), "nonsense", 25); err != ErrBadCursor {
		t.Errorf("Page(nonsense) = %v, want ErrBadCursor", err)
	}
}
