package access

import (
	"fmt"
	"strings"

	"github.com/taskwire/taskwire/internal/caller/authz"
)

// ReasonToolsetForbids marks the refusal of a tool outside the toolsets
// its token is limited to. Like a missing scope, a token lifts it (one
// allowed the tool's toolset), so the front door answers it the same way:
// HTTP 403.
const ReasonToolsetForbids = "TOOLSET_FORBIDS"

// ToolsetForbids returns the status of a call to tool, of toolset, by a
// token limited to toolsets. Its metadata names the tool, its toolset and
// the token's toolsets (comma-separated).
func ToolsetForbids(tool, toolset string, toolsets []string) error {
	return refusal(ToolsetSentence(tool, toolset, toolsets), ReasonToolsetForbids, map[string]string{
		"tool": tool, "toolset": toolset, "toolsets": strings.Join(toolsets, ","),
	})
}

// ToolsetSentence says why a token limited to toolsets may not call tool,
// e.g. "This token is limited to the toolsets tasks, comments, and
// work_next is in the work toolset; ask an admin for a token that
// includes work."
func ToolsetSentence(tool, toolset string, toolsets []string) string {
	if toolset == "" {
		return fmt.Sprintf("This token is limited to the toolsets %s, and %s belongs to none of them.", strings.Join(toolsets, ", "), tool)
	}
	if !authz.ValidToolset(toolset) {
		return fmt.Sprintf("This token is limited to the toolsets %s, and %s is in the %s toolset, which no token can be limited to; use a token without a toolset limit.",
			strings.Join(toolsets, ", "), tool, toolset)
	}
	return fmt.Sprintf("This token is limited to the toolsets %s, and %s is in the %s toolset; ask an admin for a token that includes %s.",
		strings.Join(toolsets, ", "), tool, toolset, toolset)
}
