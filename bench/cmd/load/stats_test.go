package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1000; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	sortDurations(d)
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {0.999, 999 * time.Millisecond}, {1, time.Second}, {0, time.Millisecond}} {
		if got := percentile(d, c.q); got != c.want {
			t.Errorf("percentile(1..1000 ms, %v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile(nil, 0.5) = %v, want 0", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

func TestParseStat(t *testing.T) {
	// comm may hold spaces and parentheses; utime and stime are fields 14 and 15.
	line := "4242 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 250 75 0 0 20 0 9 0 100 0 0"
	got, err := parseStat(line)
	if err != nil || got != 325 {
		t.Errorf("parseStat(%q) = %d, %v, want 325 ticks", line, got, err)
	}
}
