package authz

import (
	"fmt"
	"slices"
	"strings"
)

// Member roles on a tenant, strongest first. A role bounds what a member
// may do whatever its tokens say: what one call may do is the role
// narrowed by the token's scopes (Permits).
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
	RoleViewer = "viewer"
)

// AllRoles lists every role, strongest first.
var AllRoles = []string{RoleOwner, RoleAdmin, RoleMember, RoleViewer}

// roleScopes is what each role may do, in the terms of token scopes. Admins
// and owners may do everything members may; what only they may do (managing
// members and tokens) goes through the admin API, not through these scopes.
var roleScopes = map[string][]string{
	RoleOwner:  {ScopeRead, ScopeComment, ScopeWrite},
	RoleAdmin:  {ScopeRead, ScopeComment, ScopeWrite},
	RoleMember: {ScopeRead, ScopeComment, ScopeWrite},
	RoleViewer: {ScopeRead},
}

// ValidRole reports whether r is a known role.
func ValidRole(r string) bool {
	_, ok := roleScopes[r]
	return ok
}

// RoleAllows reports whether a member with role may do what needs the
// scope need. An empty need is always allowed; an unknown role allows
// nothing else.
func RoleAllows(role, need string) bool {
	return need == "" || slices.Contains(roleScopes[role], need)
}

// Permits reports whether a call by a member with role, made with a token
// holding scopes, may do what needs the scope need: both the role and the
// token must allow it.
func Permits(role string, scopes []string, need string) bool {
	return RoleAllows(role, need) && Allows(scopes, need)
}

// Permitted lists what a member with role, holding a token with scopes,
// may do, as scopes, weakest first.
func Permitted(role string, scopes []string) []string {
	var out []string
	for _, s := range AllScopes {
		if Permits(role, scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

// Refusal describes a call that the caller's role does not permit, for the
// sentence the caller (usually a model) reads.
type Refusal struct {
	Role   string // the caller's role, e.g. "viewer"
	Tenant string // the tenant's slug, e.g. "acme"
	Tool   string // the tool's name, e.g. "tasks_move"
	Title  string // the tool's title, e.g. "Move a task"; may be empty
	Need   string // what the tool needs, e.g. "write"
}

// Sentence says who the caller is, what the role allows, what was refused
// and whom to ask, e.g. "You are a viewer on tenant acme, and viewers can
// only read: you cannot move a task (tasks_move needs write). Ask an owner
// or admin of acme for a role that allows write."
func (r Refusal) Sentence() string {
	what := fmt.Sprintf("use %s (it needs %s)", r.Tool, r.Need)
	if r.Title != "" {
		// A title is an imperative like "Move a task": as the rest of
		// "you cannot …" it reads as it is, first letter lowered.
		what = fmt.Sprintf("%s (%s needs %s)", lowerFirst(r.Title), r.Tool, r.Need)
	}
	return fmt.Sprintf("You are %s %s on tenant %s, and %ss %s: you cannot %s. Ask an owner or admin of %s for a role that allows %s.",
		Article(r.Role), r.Role, r.Tenant, r.Role, abilities(r.Role), what, r.Tenant, r.Need)
}

// abilities says what a role can do, e.g. "can only read".
func abilities(role string) string {
	can := roleScopes[role]
	switch len(can) {
	case 0:
		return "can do nothing"
	case 1:
		return "can only " + can[0]
	}
	return "can " + strings.Join(can[:len(can)-1], ", ") + " and " + can[len(can)-1]
}

// Article is the indefinite article of a word, such as a role: "an"
// before a vowel ("an admin", "a member").
func Article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
