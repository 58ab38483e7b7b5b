package mcptest

import (
	"encoding/json"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// envelopes names, per legacy revision, the definitions of a whole
// notification, error response and result response.
var envelopes = map[string][3]string{
	mcp.Version20251125: {"JSONRPCNotification", "JSONRPCErrorResponse", "JSONRPCResultResponse"},
	mcp.Version20250618: {"JSONRPCNotification", "JSONRPCError", "JSONRPCResponse"},
}

// legacyResultDefs names the result definition of each request method of
// the legacy revisions, which define no per-method response messages.
var legacyResultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"completion/complete":      "CompleteResult",
}

// validateLegacy checks a message sent to a client of a legacy revision.
func validateLegacy(t testing.TB, version string, raw []byte, m map[string]json.RawMessage, method string) {
	t.Helper()
	env, ok := envelopes[version]
	if !ok {
		t.Errorf("mcptest: no schema for MCP %s", version)
		return
	}
	switch {
	case m["method"] != nil:
		ValidateMessageAt(t, version, raw, env[0])
		validateNotification(t, version, raw, m["method"])
	case m["error"] != nil && m["id"] == nil && version == mcp.Version20250618:
		// Its JSONRPCError requires an id, which a refusal sent before the
		// request was read cannot have (JSON-RPC 2.0 allows leaving it
		// out); the error object is all there is to check.
		ValidateMessageAt(t, version, m["error"], env[1]+"/properties/error")
	case m["error"] != nil:
		ValidateMessageAt(t, version, raw, env[1])
	default:
		ValidateMessageAt(t, version, raw, env[2])
		if def, ok := legacyResultDefs[method]; ok {
			ValidateMessageAt(t, version, m["result"], def)
		}
		checkNoModernMembers(t, version, m["result"])
	}
}

// checkNoModernMembers fails t if a legacy result carries members that
// 2026-07-28 added. The legacy schemas let results hold anything, so
// validation alone would not notice a modern result sent to an old client.
func checkNoModernMembers(t testing.TB, version string, raw json.RawMessage) {
	t.Helper()
	var r struct {
		ResultType *string                    `json:"resultType"`
		TTLMs      *int64                     `json:"ttlMs"`
		CacheScope *string                    `json:"cacheScope"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return // the schema has said why
	}
	_, serverInfo := r.Meta[mcp.MetaServerInfo]
	if r.ResultType != nil || r.TTLMs != nil || r.CacheScope != nil || serverInfo {
		t.Errorf("a %s result carries members of 2026-07-28 (resultType, ttlMs, cacheScope or _meta serverInfo): %s", version, raw)
	}
}
