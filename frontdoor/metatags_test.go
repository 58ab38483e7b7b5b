package frontdoor

import (
	"reflect"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// TestMetaTagsAreTheConstants: struct tags cannot name a constant, so the
// _meta keys the front door encodes through them are checked against
// package mcp's, which everything else (the bridge too) uses.
func TestMetaTagsAreTheConstants(t *testing.T) {
	for _, tc := range []struct {
		v     any
		field string
		want  string
	}{
		{subscriptionMeta{}, "SubscriptionID", mcp.MetaSubscriptionID},
		{listenResult{}.Meta, "ServerInfo", mcp.MetaServerInfo},
		{listenResult{}.Meta, "SubscriptionID", mcp.MetaSubscriptionID},
		{resultMeta{}, "ServerInfo", mcp.MetaServerInfo},
		{resultMeta{}, "Problems", mcp.MetaProblems},
	} {
		typ := reflect.TypeOf(tc.v)
		f, ok := typ.FieldByName(tc.field)
		if !ok {
			t.Fatalf("%s has no field %s", typ, tc.field)
		}
		if got, _, _ := strings.Cut(f.Tag.Get("json"), ","); got != tc.want {
			t.Errorf("%s.%s encodes as %q, want %q", typ, tc.field, got, tc.want)
		}
	}
}
