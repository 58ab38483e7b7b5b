package titlematch

import (
	"slices"
	"testing"
)

// A title of n distinct words is looked up by n − ⌈0.8·n⌉ + 1 of them, and
// similar titles have between ⌈0.8·n⌉ and ⌊n/0.8⌋ words.
func TestProbeSizeAndSizes(t *testing.T) {
	if Threshold != 0.8 {
		t.Fatalf("Threshold = %v, want 0.8", Threshold)
	}
	for _, c := range []struct{ n, probe, least, most int }{
		{0, 1, 0, 0}, {1, 1, 1, 1}, {4, 1, 4, 5}, {5, 2, 4, 6}, {9, 2, 8, 11}, {10, 3, 8, 12}, {15, 4, 12, 18},
	} {
		if c.n > 0 {
			if got := ProbeSize(c.n); got != c.probe {
				t.Errorf("ProbeSize(%d) = %d, want %d", c.n, got, c.probe)
			}
		}
		set := make([]string, c.n)
		for i := range set {
			set[i] = string(rune('a' + i))
		}
		if got := len(Probe(set, func(string) int { return 0 })); got != c.probe {
			t.Errorf("len(Probe(%d words)) = %d, want %d", c.n, got, c.probe)
		}
		if least, most := Sizes(c.n); least != c.least || most != c.most {
			t.Errorf("Sizes(%d) = %d, %d, want %d, %d", c.n, least, most, c.least, c.most)
		}
	}
}

// A title is indexed by every word, and one without words by Empty.
func TestTokens(t *testing.T) {
	set := Set(Words("Fix the login timeout"))
	if got := Tokens(set); !slices.Equal(got, set) {
		t.Errorf("Tokens(%q) = %q, want every word", set, got)
	}
	if got := Tokens(Set(Words("!!!"))); !slices.Equal(got, []string{Empty}) {
		t.Errorf("Tokens(no words) = %q, want [Empty]", got)
	}
}

// A look-up takes the words fewest titles hold: a project's name in every
// title of the board is never looked up while the title has rarer words.
func TestProbeTakesTheRarestWords(t *testing.T) {
	set := Set(Words("Acme billing: retry invoice export on timeout"))
	board := map[string]int{"acme": 500, "billing": 40, "retry": 3, "invoice": 12, "export": 7, "on": 500, "timeout": 9}
	got := Probe(set, func(w string) int { return board[w] })
	slices.Sort(got)
	if want := []string{"export", "retry"}; !slices.Equal(got, want) {
		t.Errorf("Probe(%q) = %q, want the two rarest %q", set, got, want)
	}
}

// Words equally frequent are taken in Order: common words last, the most
// common at the very end.
func TestSetPutsCommonWordsLast(t *testing.T) {
	got := Set(Words("Fix the login timeout: fix it!"))
	if want := []string{"it", "fix", "the"}; !slices.Equal(got[len(got)-3:], want) {
		t.Errorf("Set(...) = %q, want it to end with %q", got, want)
	}
	if p := Probe(got, func(string) int { return 0 }); slices.Contains(p, "the") || slices.Contains(p, "fix") {
		t.Errorf("Probe(%q) = %q, want no common word when all are equally rare", got, p)
	}
}

// Probe stops counting once enough words are held by no title.
func TestProbeStopsAtUnheldWords(t *testing.T) {
	set := Set(Words("alpha beta gamma delta epsilon zeta"))
	var counted []string
	got := Probe(set, func(w string) int {
		counted = append(counted, w)
		return 0
	})
	if !slices.Equal(got, set[:2]) || !slices.Equal(counted, set[:2]) {
		t.Errorf("Probe counted %q and returned %q, want the first two in Order, %q, counted alone", counted, got, set[:2])
	}
}
