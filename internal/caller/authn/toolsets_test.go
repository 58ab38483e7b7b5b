package authn

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestToolsetsClaim(t *testing.T) {
	k := newTestKey(t)
	is, v := newTestIssuer(t, k), newTestVerifier(t, k, nil)

	limited := acme
	limited.Toolsets = []string{"work", "tasks", "work"}
	tok, minted, err := is.Mint(limited)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tasks", "work"}
	if !slices.Equal(minted.Toolsets, want) {
		t.Errorf("Minted.Toolsets = %v, want %v", minted.Toolsets, want)
	}
	var payload map[string]any
	decodeSegment(t, strings.Split(tok, ".")[1], &payload)
	if got, ok := payload["toolsets"].([]any); !ok || len(got) != 2 || got[0] != "tasks" || got[1] != "work" {
		t.Errorf("toolsets claim = %#v, want the array [tasks work]", payload["toolsets"])
	}
	c, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Toolsets, want) {
		t.Errorf("Verify toolsets = %v, want %v", c.Toolsets, want)
	}

	// A token without a limit carries no claim at all, and means every toolset.
	tok = mint(t, is, acme)
	payload = nil
	decodeSegment(t, strings.Split(tok, ".")[1], &payload)
	if _, ok := payload["toolsets"]; ok {
		t.Errorf("toolsets claim = %v in an unlimited token, want it absent", payload["toolsets"])
	}
	if c, err := v.Verify(context.Background(), tok); err != nil || c.Toolsets != nil {
		t.Errorf("Verify = %+v, %v; want no toolsets (all)", c, err)
	}

	bad := acme
	bad.Toolsets = []string{"tasks", "admin"}
	if _, _, err := is.Mint(bad); err == nil || !strings.Contains(err.Error(), `"admin"`) {
		t.Errorf("Mint(toolsets tasks, admin) = %v, want an error naming admin", err)
	}
}

func TestVerifyRefusesBadToolsets(t *testing.T) {
	k := newTestKey(t)
	for _, tc := range []refusalCase{
		{name: "unknown toolset", token: signEd(t, k, k.ID, with(validClaims(), "toolsets", []string{"tasks", "admin"})), reason: "the token has an unknown toolset"},
		{name: "toolsets not an array", token: signEd(t, k, k.ID, with(validClaims(), "toolsets", "tasks")), reason: malformed},
	} {
		t.Run(tc.name, func(t *testing.T) { checkRefusal(t, k, tc) })
	}
}
