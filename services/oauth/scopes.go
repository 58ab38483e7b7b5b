package oauth

import (
	"slices"
	"strings"

	"github.com/taskwire/taskwire/internal/caller/authz"
)

// parseScope returns the scopes of an OAuth scope parameter, weakest
// first; none asks for every scope (read comment write), which the
// person's role then caps. An unknown scope is invalid_scope.
func parseScope(scope string) ([]string, error) {
	asked := strings.Fields(scope)
	if len(asked) == 0 {
		return slices.Clone(authz.AllScopes), nil
	}
	for _, sc := range asked {
		if !authz.Valid(sc) {
			return nil, refuse(errInvalidScope, "The scope %q is not one of this server's: ask for read, comment or write (write allows all three).", printable(sc))
		}
	}
	return ordered(asked), nil
}

// ordered is scopes without duplicates, weakest first.
func ordered(scopes []string) []string {
	var out []string
	for _, sc := range authz.AllScopes {
		if slices.Contains(scopes, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// capScopes is scopes as far as an assistant with role may use them: a
// viewer's reads only. Since write and comment include read, asking for
// them alone still gives a viewer's assistant read.
func capScopes(scopes []string, role string) []string {
	var out []string
	for _, sc := range scopes {
		if authz.RoleAllows(role, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 && authz.RoleAllows(role, authz.ScopeRead) {
		out = []string{authz.ScopeRead}
	}
	return out
}

// assistantRole is the role an assistant acting for a person with role
// holds: at most member (assistants never administer), at most the
// person's own.
func assistantRole(role string) string {
	if role == authz.RoleViewer {
		return authz.RoleViewer
	}
	return authz.RoleMember
}
