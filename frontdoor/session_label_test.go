package frontdoor

import (
	"net/http"
	"strings"
	"testing"
)

func TestSessionLabel(t *testing.T) {
	for _, tt := range []struct {
		values []string
		want   string
	}{
		{[]string{"laptop claude"}, "laptop claude"},
		{[]string{"  padded  "}, "padded"},
		{nil, ""},
		{[]string{"one", "two"}, ""},
		{[]string{"tab\there"}, ""},
		{[]string{"caf\u00e9"}, ""},
		{[]string{strings.Repeat("x", maxSessionLabel+1)}, ""},
	} {
		h := http.Header{}
		for _, v := range tt.values {
			h.Add(hdrSessionLabel, v)
		}
		if got := sessionLabel(h); got != tt.want {
			t.Errorf("sessionLabel(%q) = %q, want %q", tt.values, got, tt.want)
		}
	}
}
