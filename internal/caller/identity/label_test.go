package identity

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"
)

// TestSessionLabel: a label that is not printable text is not recorded,
// and a long one is cut to MaxSessionLabel characters. (gRPC itself lets
// only printable ASCII through; the workers do not rely on it.)
func TestSessionLabel(t *testing.T) {
	tests := []struct {
		md   metadata.MD
		want string
	}{
		{metadata.Pairs(MDSessionLabel, "laptop claude"), "laptop claude"},
		{metadata.Pairs(MDSessionLabel, "bad\x01label"), ""},
		{metadata.Pairs(MDSessionLabel, "line\nbreak"), ""},
		{metadata.Pairs(MDSessionLabel, "bad \xff utf-8"), ""},
		{metadata.Pairs(MDSessionLabel, strings.Repeat("é", 150)), strings.Repeat("é", 100)},
		{metadata.Pairs(MDSessionLabel, "one", MDSessionLabel, "two"), ""},
		{metadata.MD{}, ""},
	}
	for _, tt := range tests {
		ctx := metadata.NewIncomingContext(context.Background(), tt.md)
		if got := SessionLabel(ctx); got != tt.want {
			t.Errorf("SessionLabel(%q) = %q, want %q", tt.md.Get(MDSessionLabel), got, tt.want)
		}
	}
}
