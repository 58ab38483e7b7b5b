package sealed

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func testKey(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func TestSealOpen(t *testing.T) {
	box, err := NewBox(testKey(1))
	if err != nil {
		t.Fatal(err)
	}
	s := box.Seal("state", []byte("hello"))
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			t.Fatalf("Seal = %q, want visible ASCII only", s)
		}
	}
	if got, err := box.Open("state", s); err != nil || string(got) != "hello" {
		t.Errorf("Open(Seal(hello)) = %q, %v", got, err)
	}
	if s2 := box.Seal("state", []byte("hello")); s2 == s {
		t.Error("two seals of one value are equal, want random nonces")
	}
	refused := map[string]string{
		"other purpose": "",
		"altered":       s[:len(s)-2] + "AA",
		"no key id":     strings.SplitN(s, ".", 2)[1],
		"unknown key":   "deadbeef." + strings.SplitN(s, ".", 2)[1],
		"not base64":    strings.SplitN(s, ".", 2)[0] + ".!!!",
		"short":         strings.SplitN(s, ".", 2)[0] + ".AAAA",
		"empty":         "",
	}
	for name, v := range refused {
		purpose := "state"
		if name == "other purpose" {
			purpose, v = "session", s
		}
		if _, err := box.Open(purpose, v); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Open = %v, want ErrInvalid", name, err)
		}
	}
}

func TestRotation(t *testing.T) {
	old, _ := NewBox(testKey(1))
	sealedOld := old.Seal("p", []byte("x"))
	rotated, err := NewBox(testKey(2), testKey(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rotated.Open("p", sealedOld); err != nil {
		t.Errorf("a rotated box cannot open what the old key sealed: %v", err)
	}
	if _, err := old.Open("p", rotated.Seal("p", []byte("y"))); err == nil {
		t.Error("a box without the new key opened what it sealed")
	}
	if _, err := NewBox(); err == nil {
		t.Error("NewBox() with no key succeeded")
	}
	if _, err := NewBox([]byte("short")); err == nil {
		t.Error("NewBox(short key) succeeded")
	}
}
