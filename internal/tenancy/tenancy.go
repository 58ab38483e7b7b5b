// Package tenancy creates and looks up tenants and their members: at the
// first start of a server (Bootstrap), for the admin commands that add
// members or issue tokens for them, and for the worker, which reads the
// membership behind every call through a Resolver. Its lookups (Tenant,
// MemberByHandle, MemberByID, Caller) are the one way every service finds
// a tenant by slug or a member within it.
package tenancy

import (
	"regexp"

	"github.com/taskwire/taskwire/internal/domainerr"
)

// nameRE is the shape of tenant slugs, member handles and board slugs: they
// appear in tokens, URLs and tool arguments.
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// checkName returns an Invalid error unless v is a valid slug or handle.
func checkName(what, v string) error {
	if !nameRE.MatchString(v) {
		return domainerr.New(domainerr.Invalid,
			"%s %q is not valid: use 1 to 40 lowercase letters, digits or dashes, starting with a letter, e.g. \"acme\"", what, v)
	}
	return nil
}

// CheckBoardSlug returns an Invalid error unless v may name a board.
func CheckBoardSlug(v string) error {
	if !nameRE.MatchString(v) {
		return domainerr.New(domainerr.Invalid,
			"board slug %q is not valid: use 1 to 40 lowercase letters, digits or dashes, starting with a letter, e.g. \"ops\"", v)
	}
	return nil
}

// CheckTenantSlug returns an Invalid error unless v may name a tenant.
func CheckTenantSlug(v string) error { return checkName("tenant slug", v) }

// CheckHandle returns an Invalid error unless h may name a member.
func CheckHandle(h string) error { return checkHandle(h) }
