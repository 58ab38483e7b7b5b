package tokens

import (
	"slices"

	"github.com/taskwire/taskwire/services/authz"
	"github.com/taskwire/taskwire/services/identity"
)

// Mismatch names the first claim of c that differs from what r records as
// issued: "tenant", "member", "kind", "scopes", "toolsets" or "expiry";
// "" when c is what was issued. A token whose claims differ from its
// record was re-signed by someone holding a signing key (or forged around
// a verifier's bug): it must be refused, however well signed. Scopes and
// toolsets are compared in any order; an expiry c does not know (a call from an
// older front door) is not compared.
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
	case len(c.Scopes) != len(r.Scopes) || !slices.Equal(normalScopes(c.Scopes), r.Scopes):
		return "scopes"
	case !sameToolsets(c.Toolsets, r.Toolsets):
		return "toolsets"
	case !c.Expires.IsZero() && c.Expires.Unix() != r.ExpiresAt.Unix():
		return "expiry"
	}
	return ""
}

// sameToolsets reports whether a and b limit a token alike.
func sameToolsets(a, b []string) bool {
	na, errA := authz.NormalToolsets(a)
	nb, errB := authz.NormalToolsets(b)
	return errA == nil && errB == nil && slices.Equal(na, nb)
}
