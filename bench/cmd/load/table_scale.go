package main

import (
	"fmt"
	"io"
	"slices"
)

// scaleTarget is the most a median may grow from its value on the smallest
// board.
const scaleTarget = 1.5

func isScale(r Record) bool { return r.Size > 0 }

// column is one board shape of a scale run: a size of one board, or many
// tenants' boards of that size.
type column struct{ size, tenants int }

func (c column) String() string {
	if c.tenants > 0 {
		return fmt.Sprintf("%s tenants × %s", thousands(c.tenants), thousands(c.size))
	}
	return thousands(c.size)
}

// scaleTables prints, for each setup of a scale run, each scenario's median
// latency at each board shape and its ratio to the smallest single board.
func scaleTables(w io.Writer, recs []Record) {
	var setups []string
	for _, r := range recs {
		if isScale(r) && !slices.Contains(setups, r.Setup) {
			setups = append(setups, r.Setup)
		}
	}
	for _, setup := range setups {
		var cols []column
		var scenarios []string
		for _, r := range recs {
			if !isScale(r) || r.Setup != setup {
				continue
			}
			if c := (column{r.Size, r.Tenants}); !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
			if !slices.Contains(scenarios, r.Scenario) {
				scenarios = append(scenarios, r.Scenario)
			}
		}
		slices.SortFunc(cols, func(a, b column) int {
			if a.tenants != b.tenants {
				return a.tenants - b.tenants
			}
			return a.size - b.size
		})
		fmt.Fprintf(w, "\nScale, %s: median ms of one caller's calls by open tasks on the board, and (×) its ratio to the median at %s (target ≤ %.1f×):\n\n", setup, cols[0], scaleTarget)
		fmt.Fprint(w, "| scenario |")
		for _, c := range cols {
			fmt.Fprintf(w, " %s |", c)
		}
		fmt.Fprint(w, "\n|---|")
		for range cols {
			fmt.Fprint(w, "--:|")
		}
		fmt.Fprintln(w)
		for _, sc := range scenarios {
			fmt.Fprintf(w, "| %s |", sc)
			base := 0.0
			for i, c := range cols {
				p50, errs, ok := scaleCell(recs, setup, sc, c)
				switch {
				case !ok:
					fmt.Fprint(w, " – |")
				case i == 0:
					base = p50
					fmt.Fprintf(w, " %.2f%s |", p50, errNote(errs))
				case base > 0:
					mark := ""
					if p50/base > scaleTarget {
						mark = " missed"
					}
					fmt.Fprintf(w, " %.2f (%.2f×%s)%s |", p50, p50/base, mark, errNote(errs))
				default:
					fmt.Fprintf(w, " %.2f%s |", p50, errNote(errs))
				}
			}
			fmt.Fprintln(w)
		}
	}
}

// scaleCell is the median over rounds of the p50 of setup's scenario at c,
// and the errors summed over them.
func scaleCell(recs []Record, setup, scenario string, c column) (p50 float64, errs int, ok bool) {
	var xs []float64
	for _, r := range recs {
		if isScale(r) && r.Setup == setup && r.Scenario == scenario && (column{r.Size, r.Tenants}) == c {
			xs = append(xs, r.P50Ms)
			errs += r.Errors
		}
	}
	return median(xs), errs, len(xs) > 0
}

func errNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d errors", n)
}

// thousands writes n with commas: 20,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
