package dbcopy

import (
	"fmt"
	"strings"

	"entgo.io/ent/dialect/sql/schema"
)

// inOrder returns tables so that every table comes after the tables its
// foreign keys point to, as PostgreSQL checks each key once a table's
// rows are in. A table's keys to itself (a member's sponsor) need no
// order: PostgreSQL checks them at the end of the one COPY that holds the
// whole table. Tables keep their given order where the keys allow it.
func inOrder(tables []*schema.Table) ([]*schema.Table, error) {
	placed := make(map[string]bool, len(tables))
	out := make([]*schema.Table, 0, len(tables))
	for len(out) < len(tables) {
		progress := false
		for _, t := range tables {
			if !placed[t.Name] && refsPlaced(t, placed) {
				placed[t.Name] = true
				out = append(out, t)
				progress = true
			}
		}
		if !progress {
			return nil, fmt.Errorf("dbcopy: the foreign keys of %s form a cycle, so no table of them can be copied first", strings.Join(unplaced(tables, placed), ", "))
		}
	}
	return out, nil
}

// refsPlaced reports whether every table t's foreign keys point to,
// itself aside, is placed.
func refsPlaced(t *schema.Table, placed map[string]bool) bool {
	for _, fk := range t.ForeignKeys {
		if fk.RefTable != nil && fk.RefTable.Name != t.Name && !placed[fk.RefTable.Name] {
			return false
		}
	}
	return true
}

func unplaced(tables []*schema.Table, placed map[string]bool) []string {
	var names []string
	for _, t := range tables {
		if !placed[t.Name] {
			names = append(names, t.Name)
		}
	}
	return names
}
