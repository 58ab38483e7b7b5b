package sessions

import "testing"

func TestDummyHash(t *testing.T) {
	a, b := dummyHash(), dummyHash()
	if a == b {
		t.Errorf("dummyHash() = %q twice, want a random key each time", a)
	}
	for _, pw := range []string{"", "a long enough password"} {
		ok, rehash, err := VerifyPassword(a, pw)
		if ok || rehash || err != nil {
			t.Errorf("VerifyPassword(dummyHash(), %q) = %v, %v, %v; want false, false, nil (today's parameters, no match)", pw, ok, rehash, err)
		}
	}
}
