package authz

import (
	"fmt"
	"slices"
	"strings"
)

// Toolsets group the tools (each tool's (taskwire.mcp.v1.tool) toolset).
// A token may be limited to some of them: it then sees and may call only
// their tools, whatever its scopes allow.
const (
	ToolsetContext  = "context"
	ToolsetTasks    = "tasks"
	ToolsetComments = "comments"
	ToolsetWork     = "work"
	ToolsetAudit    = "audit"
)

// AllToolsets lists every toolset a token can be limited to, in the order
// the catalogue and its listings group them.
var AllToolsets = []string{ToolsetContext, ToolsetTasks, ToolsetComments, ToolsetWork, ToolsetAudit}

// ToolsetConformance holds the test tools of the MCP conformance suite,
// which a server offers only in its conformance mode. It is a toolset of
// the catalogue but not one a token can name: a token limited to
// toolsets never reaches those tools.
const ToolsetConformance = "conformance"

// ValidToolset reports whether s is a toolset a token can be limited to.
func ValidToolset(s string) bool {
	return slices.Contains(AllToolsets, s)
}

// ToolsetAllows reports whether a token limited to toolsets may use a tool
// of toolset. No toolsets means every toolset; a tool without a toolset is
// then allowed too, but never to a limited token, so a tool someone forgot
// to group fails closed.
func ToolsetAllows(toolsets []string, toolset string) bool {
	return len(toolsets) == 0 || (toolset != "" && slices.Contains(toolsets, toolset))
}

// NormalToolsets checks that every name in toolsets is a known toolset and
// returns them without duplicates, in AllToolsets order, so equal limits
// look equal in tokens and listings. None (nil) means every toolset.
func NormalToolsets(toolsets []string) ([]string, error) {
	for _, s := range toolsets {
		if !ValidToolset(s) {
			return nil, fmt.Errorf("toolset %q is not known: use %s", s, strings.Join(AllToolsets, ", "))
		}
	}
	var out []string
	for _, s := range AllToolsets {
		if slices.Contains(toolsets, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// ToolsetsText names toolsets for people: "all" for a token without a
// limit, else the names joined by commas.
func ToolsetsText(toolsets []string) string {
	if len(toolsets) == 0 {
		return "all"
	}
	return strings.Join(toolsets, ",")
}
