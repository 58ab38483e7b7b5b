package dbcopy

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// ErrMismatch is the error of Copy and Verify when a table of the target
// does not hold what the source holds.
var ErrMismatch = errors.New("dbcopy: the target does not hold what the source holds")

// Report is what Copy or Verify found, table by table.
type Report struct {
	Source string        // the SQLite database file read
	Tables []TableCheck  // every table, in the schema's order
	Copied time.Duration // how long the copy took, its check aside; 0 for Verify
}

// TableCheck is one table in both databases.
type TableCheck struct {
	Table          string
	Source, Target Sum
}

// OK reports whether the target's table holds the same rows as the
// source's.
func (c TableCheck) OK() bool { return c.Source == c.Target }

// OK reports whether every table matches.
func (r *Report) OK() bool { return len(r.mismatched()) == 0 }

// Rows is how many rows the source holds in all.
func (r *Report) Rows() int64 {
	var n int64
	for _, c := range r.Tables {
		n += c.Source.Rows
	}
	return n
}

func (r *Report) mismatched() []string {
	var out []string
	for _, c := range r.Tables {
		if !c.OK() {
			out = append(out, c.Table)
		}
	}
	return out
}

// err is ErrMismatch, naming the tables, or nil.
func (r *Report) err() error {
	bad := r.mismatched()
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w in %s: start nothing on it; stop everything writing to %s (serve), then drop the target database, create it again and copy again", ErrMismatch, strings.Join(bad, ", "), r.Source)
}

// Print writes the report as a table: rows in each database and whether
// the checksums match.
func (r *Report) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tSQLite rows\tPostgreSQL rows\tcheck")
	for _, c := range r.Tables {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.Table, c.Source.Rows, c.Target.Rows, verdict(c))
	}
	tw.Flush()
}

// verdict is a table's line's last column.
func verdict(c TableCheck) string {
	switch {
	case c.OK():
		return "OK"
	case c.Source.Rows != c.Target.Rows:
		return "MISMATCH (rows)"
	}
	return "MISMATCH (checksum)"
}
