// Package authz decides what a caller may do.
package authz

import "slices"

// Token scopes. They form a hierarchy: write implies comment and read,
// comment implies read.
const (
	ScopeRead    = "read"
	ScopeComment = "comment"
	ScopeWrite   = "write"
)

// AllScopes lists every scope, weakest first.
var AllScopes = []string{ScopeRead, ScopeComment, ScopeWrite}

var implies = map[string][]string{
	ScopeRead:    {ScopeRead},
	ScopeComment: {ScopeComment, ScopeRead},
	ScopeWrite:   {ScopeWrite, ScopeComment, ScopeRead},
}

// Allows reports whether a token holding scopes may do what needs the scope
// need. An empty need is always allowed.
func Allows(scopes []string, need string) bool {
	if need == "" {
		return true
	}
	for _, s := range scopes {
		if slices.Contains(implies[s], need) {
			return true
		}
	}
	return false
}

// Needed are the scopes a token must be granted to do what needs the
// scope need: need and those it implies, weakest first ("read comment
// write" for write). A client stepping up asks for all of them.
func Needed(need string) []string {
	var out []string
	for _, s := range AllScopes {
		if slices.Contains(implies[need], s) {
			out = append(out, s)
		}
	}
	return out
}

// Valid reports whether s is a known scope.
func Valid(s string) bool {
	_, ok := implies[s]
	return ok
}
