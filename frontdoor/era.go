package frontdoor

import (
	"encoding/json"
	"net/http"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// The versions served, by era. The modern era (2026-07-28) is stateless:
// every request names its version in _meta. The legacy era (2025-06-18,
// 2025-11-25) starts with initialize and keeps a session, which this
// server seals into the Mcp-Session-Id it hands out (session.go).
var (
	modernVersions = []string{mcp.LatestVersion}
	legacyVersions = []string{mcp.Version20251125, mcp.Version20250618}
	// supportedVersions are all versions served, newest first: what
	// server/discover lists and what -32022 names, so that a dual-era
	// client can pick either era.
	supportedVersions = append(append([]string{}, modernVersions...), legacyVersions...)
)

// isModern tells the era of a message (MCP 2026-07-28, serving older
// clients): modern when the MCP-Protocol-Version header names a modern
// version or the body carries the _meta protocolVersion key, whatever its
// value; legacy otherwise. The key decides even with a value not served,
// so that a modern client with a typo learns the versions from -32022
// instead of being asked for a session it never heard of.
func isModern(hdr http.Header, msg *jsonrpc.Message) bool {
	if modernHeader(hdr) {
		return true
	}
	if msg == nil {
		return false
	}
	_, ok := metaOf(msg.Params)[mcp.MetaProtocolVersion]
	return ok
}

// modernHeader reports whether any MCP-Protocol-Version header names a
// modern version.
func modernHeader(hdr http.Header) bool {
	for _, v := range hdr.Values(mcp.HeaderProtocolVersion) {
		for _, m := range modernVersions {
			if v == m {
				return true
			}
		}
	}
	return false
}

// negotiate picks the version of a legacy initialize: the client's if it is
// served, else the newest legacy one, as the handshake prescribes; the
// client then decides whether it can speak it.
func negotiate(requested string) string {
	for _, v := range legacyVersions {
		if v == requested {
			return v
		}
	}
	return mcp.LatestLegacyVersion
}

// metaOf returns params._meta of a message, nil if absent.
func metaOf(params json.RawMessage) map[string]json.RawMessage {
	p, _ := object(params)
	m, _ := object(p["_meta"])
	return m
}
