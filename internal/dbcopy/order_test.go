package dbcopy

import (
	"testing"

	"github.com/taskwire/taskwire/internal/ent/migrate"
)

// TestOrderParentsFirst: every table of the schema comes after the tables
// its foreign keys point to, so that each key holds when its table is in.
func TestOrderParentsFirst(t *testing.T) {
	tables, err := inOrder(migrate.Tables)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != len(migrate.Tables) {
		t.Fatalf("inOrder returned %d tables, want %d", len(tables), len(migrate.Tables))
	}
	at := map[string]int{}
	for i, tb := range tables {
		at[tb.Name] = i
	}
	for _, tb := range tables {
		for _, fk := range tb.ForeignKeys {
			if ref := fk.RefTable.Name; at[ref] > at[tb.Name] {
				t.Errorf("%s comes before %s, which its key %s points to", tb.Name, ref, fk.Symbol)
			}
		}
	}
}
