package jsonrpc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// AppendString writes every string exactly as encoding/json does without
// HTML escaping: every byte value, invalid UTF-8, the line separators, and
// random mixes of them.
func TestAppendStringAsEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `{"a":"b\\c"}`, "é日本\u2028\u2029\U0001F600", "\xff", "a\xc3", "\xed\xa0\x80", "<&>"}
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "x"+string(rune(c))+"y")
	}
	pieces := []string{"a", `"`, `\`, "\n", "\x00", "\x1f", "\x7f", "é", "\u2028", "\xff", "\xe2\x80", "€", "<"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(20) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, sb.String())
	}
	for _, s := range cases {
		want, err := marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	}
}

func TestAppendObjectWith(t *testing.T) {
	for _, tc := range []struct {
		v       any
		members []Member
		want    string
	}{
		{struct{}{}, nil, `{}`},
		{struct{}{}, []Member{{"a", json.RawMessage(`[1]`)}}, `{"a":[1]}`},
		{struct {
			X int `json:"x"`
		}{1}, []Member{{"a", nil}, {"b", json.RawMessage(`{}`)}, {"c\"", json.RawMessage(`"s"`)}}, `{"x":1,"b":{},"c\"":"s"}`},
	} {
		got, err := AppendObjectWith([]byte("{"), tc.v, tc.members...)
		if err != nil || string(got) != "{"+tc.want {
			t.Errorf("AppendObjectWith(%#v, %v) = %s, %v; want %s", tc.v, tc.members, got, err, tc.want)
		}
		if !json.Valid(got[1:]) || !utf8.Valid(got) {
			t.Errorf("AppendObjectWith wrote invalid JSON %s", got[1:])
		}
	}
	if _, err := AppendObjectWith(nil, []int{1}); err == nil {
		t.Error("AppendObjectWith of an array succeeded")
	}
}
