package frontdoor

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp"
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
		if got := sessionLabel(h, nil); got != tt.want {
			t.Errorf("sessionLabel(%q) = %q, want %q", tt.values, got, tt.want)
		}
	}
}

// TestSessionLabelFromClientInfo: a client that sends no label header is
// named by the clientInfo of its request's _meta, its title before its
// name; the header wins, and an unusable value names nothing.
func TestSessionLabelFromClientInfo(t *testing.T) {
	for _, tt := range []struct {
		header, info string
		want         string
	}{
		{"", `{"name":"claude-code","version":"2.1"}`, "claude-code"},
		{"", `{"name":"claude-code","title":"Claude Code","version":"2.1"}`, "Claude Code"},
		{"", `{"name":"claude-code","title":"caf\u00e9","version":"2.1"}`, "claude-code"},
		{"laptop", `{"name":"claude-code","version":"2.1"}`, "laptop"},
		{"", `{"name":"tab\there","version":"2.1"}`, ""},
		{"", `"not an object"`, ""},
		{"", "", ""},
	} {
		h := http.Header{}
		if tt.header != "" {
			h.Set(hdrSessionLabel, tt.header)
		}
		meta := map[string]json.RawMessage{}
		if tt.info != "" {
			meta[mcp.MetaClientInfo] = json.RawMessage(tt.info)
		}
		if got := sessionLabel(h, meta); got != tt.want {
			t.Errorf("sessionLabel(header %q, clientInfo %s) = %q, want %q", tt.header, tt.info, got, tt.want)
		}
	}
}
