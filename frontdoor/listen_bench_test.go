package frontdoor

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
)

// BenchmarkIdleListenMemory measures what one idle subscriptions/listen
// stream costs the server: heap and goroutines per stream, with 500
// streams open over raw connections. The client side of each holds one
// 4 KiB read buffer in the same process, included in heap-bytes/stream. Run: go test ./frontdoor -run '^$' -bench IdleListen -benchtime 1x
func BenchmarkIdleListenMemory(b *testing.B) {
	const streams = 500
	ev := &fakeEvents{}
	_, srv := listenHandler(b, ev)
	addr := strings.TrimPrefix(srv.URL, "http://")
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	request := fmt.Sprintf("POST /api/mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n"+
		"Content-Length: %d\r\n\r\n%s", addr, tokenAll, len(body), body)
	for range b.N {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		g0 := runtime.NumGoroutine()
		conns := make([]net.Conn, 0, streams)
		for range streams {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			c.Write([]byte(request))
			// Wait for the acknowledgement: the stream is established.
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					b.Fatal(err)
				}
				if strings.Contains(line, "acknowledged") {
					break
				}
			}
			conns = append(conns, c)
		}
		poll.Until(b, 10*time.Second, "every stream to subscribe", func() bool { return ev.count() >= streams })
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/streams, "heap-bytes/stream")
		b.ReportMetric(float64(after.StackInuse-before.StackInuse)/streams, "stack-bytes/stream")
		b.ReportMetric(float64(runtime.NumGoroutine()-g0)/streams, "goroutines/stream")
		for _, c := range conns {
			c.Close()
		}
	}
}
