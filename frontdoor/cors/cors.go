// Package cors lets browser-based MCP clients (MCP Inspector, web apps)
// read the front door's OAuth documents and call its OAuth endpoints from
// their own origin. Those answers depend on no cookie, so any origin may
// read them; the MCP endpoint and the console keep their own origin rules.
package cors

import "net/http"

// Public marks the answer readable by any origin.
func Public(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
}

// Preflight answers a browser's OPTIONS preflight for a resource that
// allows the methods allow (e.g. "GET, HEAD, OPTIONS").
func Preflight(w http.ResponseWriter, allow string) {
	h := w.Header()
	Public(w)
	h.Set("Allow", allow)
	h.Set("Access-Control-Allow-Methods", allow)
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Mcp-Protocol-Version")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}
