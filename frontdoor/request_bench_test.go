package frontdoor

import (
	"net/http"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// BenchmarkRequestChecks: decoding a tools/call as an assistant sends it
// and running every check a request passes before its method runs.
func BenchmarkRequestChecks(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"tasks_get","arguments":{"ref":"T-412"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.0"},"progressToken":"p-17"}}}`)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set(mcp.HeaderProtocolVersion, "2026-07-28")
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", "tasks_get")
	b.ReportAllocs()
	for b.Loop() {
		m, err := jsonrpc.Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		q := parseRequest(m, h)
		for _, check := range requestChecks {
			if e := check(q); e != nil {
				b.Fatal(e)
			}
		}
		if name, _ := str(q.params, "name"); name != "tasks_get" {
			b.Fatal(name)
		}
	}
}
