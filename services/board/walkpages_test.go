package board_test

import (
	"testing"
)

// walkPages calls list with each next_cursor, from the first page to the
// last, and returns the key of every item in order. It fails the test on
// an error, on an empty or overfull page, or on an item seen twice.
func walkPages[T any](t *testing.T, limit int, list func(cursor string) ([]T, string, error), key func(T) string) []string {
	t.Helper()
	var keys []string
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		items, next, err := list(cursor)
		if err != nil {
			t.Fatalf("page %d = %v", page, err)
		}
		if len(items) == 0 || len(items) > limit {
			t.Fatalf("page %d has %d items, want 1 to %d", page, len(items), limit)
		}
		for _, it := range items {
			k := key(it)
			if seen[k] {
				t.Fatalf("page %d repeats %s", page, k)
			}
			seen[k] = true
			keys = append(keys, k)
		}
		if next == "" {
			return keys
		}
		if len(items) != limit {
			t.Fatalf("page %d has %d items and a next_cursor, want a full page of %d", page, len(items), limit)
		}
		cursor = next
	}
}

// tamperCursor returns c with the first character of its payload changed.
func tamperCursor(c string) string {
	if c[0] == 'A' {
		return "B" + c[1:]
	}
	return "A" + c[1:]
}
