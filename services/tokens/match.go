package tokens

import (
	"slices"

	"github.com/taskwire/taskwire/internal/caller/identity"
)

// Mismatch names the first claim of c that differs from what r records as
// issued: "tenant", "member", "kind", "scopes", "toolsets" or "expiry";
// "" when c is what was issued. A token whose claims differ from its
// record was re-signed by someone holding a signing key (or forged around
// a verifier's bug): it must be refused, however well signed. Scopes and
// toolsets are compared as sets, in any order; an expiry c does not know
// (a call from an older front door) is not compared.
func (r Record) Mismatch(c identity.Caller) string {
	kind := c.Kind
	if kind == "" {
		kind = identity.KindMCP
	}
	switch {
	case c.Tenant != r.Tenant:
		return "tenant"
	case c.Member != r.Member:
		return "member"
	case kind != r.Kind:
		return "kind"
	case !sameSet(c.Scopes, r.Scopes):
		return "scopes"
	case !sameSet(c.Toolsets, r.Toolsets):
		return "toolsets"
	case !c.Expires.IsZero() && c.Expires.Unix() != r.ExpiresAt.Unix():
		return "expiry"
	}
	return ""
}

// sameSet reports whether a and b, lists without duplicates, hold the
// same strings in any order. Workers ask it on every call: both sides are
// short and come normalized (the claims from the verifier, the record as
// minted), so it compares them as they are, allocating nothing, instead of
// normalizing them again.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Contains(b, a[i]) || !slices.Contains(a, b[i]) {
			return false
		}
	}
	return true
}
