package authz

import (
	"fmt"
	"slices"
	"strings"
)

// AtLeast reports whether role is least or a stronger role (AllRoles is
// strongest first), for tools that need more than a scope: a tool's
// (taskwire.mcp.v1.tool) min_role. An empty least is met by every role;
// an unknown role or least by none, so a typo fails closed.
func AtLeast(role, least string) bool {
	if least == "" {
		return true
	}
	r, l := slices.Index(AllRoles, role), slices.Index(AllRoles, least)
	return r >= 0 && l >= 0 && r <= l
}

// LeastRoleSentence says that r's tool is only for least and stronger
// roles, for a caller whose role is weaker, e.g. "You are a viewer on
// tenant acme, and only owners and admins may list the audit log
// (audit_list). Ask an owner or admin of acme if you need it done."
func (r Refusal) LeastRoleSentence(least string) string {
	what := fmt.Sprintf("use %s", r.Tool)
	if r.Title != "" {
		what = fmt.Sprintf("%s (%s)", lowerFirst(r.Title), r.Tool)
	}
	return fmt.Sprintf("You are %s %s on tenant %s, and only %s may %s. Ask an owner or admin of %s if you need it done.",
		Article(r.Role), r.Role, r.Tenant, rolesFrom(least), what, r.Tenant)
}

// rolesFrom names least and the roles above it in the plural, e.g.
// "owners and admins".
func rolesFrom(least string) string {
	i := slices.Index(AllRoles, least)
	if i < 0 {
		return "some members"
	}
	var plural []string
	for _, r := range AllRoles[:i+1] {
		plural = append(plural, r+"s")
	}
	if len(plural) == 1 {
		return plural[0]
	}
	return strings.Join(plural[:len(plural)-1], ", ") + " and " + plural[len(plural)-1]
}
