// Command barepeer is the benchmark's floor: tasks_get and tasks_list over
// the same SQLite file and prepared queries as the other peers, answered
// with nothing but net/http and encoding/json. It speaks only the JSON-RPC
// requests the load generator sends (MCP 2026-07-28, stateless, tools/call
// with a JSON response), so what it spends is what any server must spend to
// read the row and write the answer; the tables divide Taskwire's costs by
// it to show how far from that floor each call is.
package main

import (
	"net/http"

	"github.com/taskwire/taskwire/bench/peerserve"
	"github.com/taskwire/taskwire/bench/taskdb"
)

func main() {
	peerserve.Main("barepeer", "127.0.0.1:18092", func(db *taskdb.DB) http.Handler {
		return &handler{db: db}
	})
}
