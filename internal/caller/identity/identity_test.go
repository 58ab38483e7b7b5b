package identity

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/grpc/metadata"
)

// incoming turns what a client would send into what a server receives.
func incoming(ctx context.Context) context.Context {
	md, _ := metadata.FromOutgoingContext(ctx)
	return metadata.NewIncomingContext(context.Background(), md)
}

func TestMetadataRoundTrip(t *testing.T) {
	want := Caller{Tenant: "acme", Member: 42, Scopes: []string{"read", "write"}, TokenID: "jti-1", Toolsets: []string{"tasks", "work"}}
	got, err := FromIncoming(incoming(AppendToOutgoing(context.Background(), want)))
	if err != nil {
		t.Fatalf("FromIncoming = %v", err)
	}
	if got.Tenant != want.Tenant || got.Member != want.Member || got.TokenID != want.TokenID || !slices.Equal(got.Scopes, want.Scopes) || !slices.Equal(got.Toolsets, want.Toolsets) {
		t.Errorf("FromIncoming = %+v, want %+v", got, want)
	}
}

func TestFromIncomingRefuses(t *testing.T) {
	for name, ctx := range map[string]context.Context{
		"no metadata": context.Background(),
		"no tenant":   incoming(AppendToOutgoing(context.Background(), Caller{Member: 1})),
		"member 0":    incoming(AppendToOutgoing(context.Background(), Caller{Tenant: "acme"})),
		"member text": metadata.NewIncomingContext(context.Background(), metadata.Pairs(MDTenant, "acme", MDMember, "one")),
		"two tenants": metadata.NewIncomingContext(context.Background(), metadata.Pairs(MDTenant, "acme", MDTenant, "globex", MDMember, "1")),
		"negative id": metadata.NewIncomingContext(context.Background(), metadata.Pairs(MDTenant, "acme", MDMember, "-3")),
	} {
		if c, err := FromIncoming(ctx); err == nil {
			t.Errorf("%s: FromIncoming = %+v, want an error", name, c)
		}
	}
}

func TestInternalKey(t *testing.T) {
	md, _ := InternalKey("k1").GetRequestMetadata(context.Background())
	ctx := metadata.NewIncomingContext(context.Background(), metadata.New(md))
	if !HasInternalKey(ctx, "k1") {
		t.Error("HasInternalKey(k1) = false for a call carrying k1")
	}
	if HasInternalKey(ctx, "k2") {
		t.Error("HasInternalKey(k2) = true for a call carrying k1")
	}
	if HasInternalKey(context.Background(), "k1") {
		t.Error("HasInternalKey = true for a call without metadata")
	}
}

func TestNewContext(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Error("FromContext(empty) found a caller")
	}
	c := Caller{Tenant: "acme", Member: 3}
	if got, ok := FromContext(NewContext(context.Background(), c)); !ok || got.Member != 3 {
		t.Errorf("FromContext = %+v, %v; want member 3", got, ok)
	}
}
