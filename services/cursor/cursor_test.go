package cursor_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/services/cursor"
	"github.com/taskwire/taskwire/services/domainerr"
)

func TestRoundTrip(t *testing.T) {
	s, err := cursor.New([]byte("0123456789abcdef0123"))
	if err != nil {
		t.Fatal(err)
	}
	q := cursor.Query("board=1", "lane=doing")
	c := s.Seal(7, "tasks", q, "12", "a.b\x1e")
	got, err := s.Open(c, 7, "tasks", q, 2)
	if err != nil {
		t.Fatalf("Open(Seal()) = %v", err)
	}
	if diff := cmp.Diff([]string{"12", "a.b\x1e"}, got); diff != "" {
		t.Errorf("Open(Seal()) (-want +got):\n%s", diff)
	}
	if got, err := s.Open("", 7, "tasks", q, 2); got != nil || err != nil {
		t.Errorf(`Open("") = %v, %v; want nil, nil`, got, err)
	}
}

func TestRefused(t *testing.T) {
	s, _ := cursor.New([]byte("0123456789abcdef0123"))
	other, _ := cursor.New([]byte("another key, just as long"))
	q := cursor.Query("board=1")
	c := s.Seal(7, "tasks", q, "12")
	for name, tc := range map[string]struct {
		c      string
		tenant int
		list   string
		query  string
		n      int
	}{
		"another tenant": {c, 8, "tasks", q, 1},
		"another list":   {c, 7, "comments", q, 1},
		"another query":  {c, 7, "tasks", cursor.Query("board=2"), 1},
		"another arity":  {c, 7, "tasks", q, 2},
		"another key":    {other.Seal(7, "tasks", q, "12"), 7, "tasks", q, 1},
		"altered":        {c[:3] + "x" + c[4:], 7, "tasks", q, 1},
		"no mac":         {c[:len(c)-23], 7, "tasks", q, 1},
		"not base64":     {"!!.!!", 7, "tasks", q, 1},
		"an old cursor":  {"YWZ0ZXI6MTI", 7, "tasks", q, 1},
		"truncated mac":  {c[:len(c)-2], 7, "tasks", q, 1},
	} {
		if _, err := s.Open(tc.c, tc.tenant, tc.list, tc.query, tc.n); domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("%s: Open(%q) = %v, want an Invalid error", name, tc.c, err)
		}
	}
}

func TestLimit(t *testing.T) {
	for in, want := range map[int32]int{0: 25, 1: 1, 100: 100} {
		if got, err := cursor.Limit(in); got != want || err != nil {
			t.Errorf("Limit(%d) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []int32{-1, 101} {
		if _, err := cursor.Limit(in); domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("Limit(%d) = %v, want Invalid", in, err)
		}
	}
}
