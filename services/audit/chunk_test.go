package audit

import (
	"slices"
	"testing"
)

func TestChunks(t *testing.T) {
	for n := range 300 {
		in := make([]int, n)
		for i := range in {
			in[i] = i
		}
		var got []int
		prev := maxChunk
		for _, c := range chunks(in) {
			if l := len(c); l == 0 || l&(l-1) != 0 || l > prev {
				t.Fatalf("chunks of %d: a chunk of %d rows after one of %d; want powers of two, at most %d, longest first", n, l, prev, maxChunk)
			}
			prev = len(c)
			got = append(got, c...)
		}
		if !slices.Equal(got, in) {
			t.Fatalf("chunks of %d put back together = %v", n, got)
		}
	}
}
