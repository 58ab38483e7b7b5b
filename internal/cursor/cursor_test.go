package cursor_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/domainerr"
)

var testKey = []byte("0123456789abcdef0123")

func TestRoundTrip(t *testing.T) {
	s, err := cursor.New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	q := cursor.Query("board=1", "lane=doing")
	for _, pos := range [][]string{{"12", "a.b\x1e"}, {""}, {strings.Repeat("long title ", 20)}, {}} {
		c := s.Seal(7, "tasks", q, pos...)
		got, err := s.Open(c, 7, "tasks", q, len(pos))
		if err != nil {
			t.Fatalf("Open(Seal(%q)) = %v", pos, err)
		}
		if diff := cmp.Diff(pos, got); diff != "" {
			t.Errorf("Open(Seal(%q)) (-want +got):\n%s", pos, diff)
		}
	}
	if got, err := s.Open("", 7, "tasks", q, 2); got != nil || err != nil {
		t.Errorf(`Open("") = %v, %v; want nil, nil`, got, err)
	}
}

// TestRevealsNothing: a cursor is encrypted. Decoded, it holds none of
// what it was sealed with (tenant, list, times, ids); the cursors of one
// page differ; and ids of different lengths give cursors of one length.
func TestRevealsNothing(t *testing.T) {
	s, _ := cursor.New(testKey)
	const tenant, at, id = 424242, "1767225600123456", "987654"
	q := cursor.Query("member=31")
	c1, c2 := s.Seal(tenant, "audit", q, at, id), s.Seal(tenant, "audit", q, at, id)
	if c1 == c2 {
		t.Errorf("two cursors of one page are equal (%q): want a fresh nonce each", c1)
	}
	for _, c := range []string{c1, c2} {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil {
			t.Fatalf("cursor %q is not base64url: %v", c, err)
		}
		for _, secret := range []string{"424242", at[:10], id, "audit", q} {
			if bytes.Contains(raw, []byte(secret)) || strings.Contains(c, secret) {
				t.Errorf("cursor %q (decoded %q) shows %q", c, raw, secret)
			}
		}
	}
	if short, long := s.Seal(tenant, "comments", q, "7"), s.Seal(tenant, "comments", q, "7000000"); len(short) != len(long) {
		t.Errorf("cursors after id 7 and id 7000000 are %d and %d characters long, want one length", len(short), len(long))
	}
}

func TestRefused(t *testing.T) {
	s, _ := cursor.New(testKey)
	other, _ := cursor.New([]byte("another key, just as long"))
	q := cursor.Query("board=1")
	c := s.Seal(7, "tasks", q, "12")
	raw, _ := base64.RawURLEncoding.DecodeString(c)
	flip := func(i int) string {
		b := bytes.Clone(raw)
		b[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(b)
	}
	for name, tc := range map[string]struct {
		c      string
		tenant int
		list   string
		query  string
		n      int
	}{
		"another tenant":     {c, 8, "tasks", q, 1},
		"another list":       {c, 7, "comments", q, 1},
		"another query":      {c, 7, "tasks", cursor.Query("board=2"), 1},
		"another arity":      {c, 7, "tasks", q, 2},
		"another key":        {other.Seal(7, "tasks", q, "12"), 7, "tasks", q, 1},
		"altered version":    {flip(0), 7, "tasks", q, 1},
		"altered nonce":      {flip(5), 7, "tasks", q, 1},
		"altered sealed":     {flip(len(raw) - 20), 7, "tasks", q, 1},
		"altered tag":        {flip(len(raw) - 1), 7, "tasks", q, 1},
		"truncated":          {c[:len(c)-2], 7, "tasks", q, 1},
		"not base64":         {"!!.!!", 7, "tasks", q, 1},
		"too short":          {"Ag", 7, "tasks", q, 1},
		"a MAC'd cursor":     {macCursor("tasks", q, "12"), 7, "tasks", q, 1},
		"an older one still": {"YWZ0ZXI6MTI", 7, "tasks", q, 1},
	} {
		_, err := s.Open(tc.c, tc.tenant, tc.list, tc.query, tc.n)
		if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(domainerr.Message(err), "leave cursor out to start from the first page") {
			t.Errorf("%s: Open(%q) = %v, want an Invalid error saying to start again", name, tc.c, err)
		}
	}
}

// macCursor is a cursor as the previous format made it under testKey:
// readable, with an HMAC. It is no longer accepted.
func macCursor(list, query string, pos ...string) string {
	payload := strings.Join(append([]string{"c1", "7", list, query}, pos...), "\x1f")
	h := hmac.New(sha256.New, testKey)
	h.Write([]byte("taskwire cursor\x00" + payload))
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
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
