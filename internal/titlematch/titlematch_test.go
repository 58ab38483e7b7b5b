package titlematch

import (
	"slices"
	"testing"
)

// The prefix of a title of n distinct words is n − ⌈0.8·n⌉ + 1 words long,
// and similar titles have between ⌈0.8·n⌉ and ⌊n/0.8⌋ words.
func TestPrefixAndSizes(t *testing.T) {
	if Threshold != 0.8 {
		t.Fatalf("Threshold = %v, want 0.8", Threshold)
	}
	for _, c := range []struct{ n, prefix, least, most int }{
		{0, 1, 0, 0}, {1, 1, 1, 1}, {4, 1, 4, 5}, {5, 2, 4, 6}, {9, 2, 8, 11}, {10, 3, 8, 12}, {15, 4, 12, 18},
	} {
		set := make([]string, c.n)
		if got := len(Prefix(set)); got != c.prefix {
			t.Errorf("len(Prefix(%d words)) = %d, want %d", c.n, got, c.prefix)
		}
		if least, most := Sizes(c.n); least != c.least || most != c.most {
			t.Errorf("Sizes(%d) = %d, %d, want %d, %d", c.n, least, most, c.least, c.most)
		}
	}
}

// Common words go to the end of a set, the most common last, so that
// prefixes hold the rarer words.
func TestSetPutsCommonWordsLast(t *testing.T) {
	got := Set(Words("Fix the login timeout: fix it!"))
	if want := []string{"it", "fix", "the"}; !slices.Equal(got[len(got)-3:], want) {
		t.Errorf("Set(...) = %q, want it to end with %q", got, want)
	}
	if p := Prefix(got); slices.Contains(p, "the") || slices.Contains(p, "fix") {
		t.Errorf("Prefix(%q) = %q, want no common word", got, p)
	}
}
