package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
)

// output is standard output, where MCP over stdio allows nothing but
// protocol messages, one per line. Replies come from many goroutines, so
// every line is written whole under one lock: lines never interleave.
type output struct {
	mu     sync.Mutex
	w      io.Writer
	log    *slog.Logger
	closed bool // the bridge is exiting: nothing more may be written
}

// write sends msg as one line. msg must be one JSON value; it is compacted,
// which removes any newline a pretty-printed body carried (a JSON string
// cannot hold a raw newline). It reports whether the line went out.
func (o *output) write(msg []byte) bool {
	var line bytes.Buffer
	if err := json.Compact(&line, msg); err != nil {
		o.log.Warn("dropped a message from the server that is not JSON", "err", err)
		return false
	}
	line.WriteByte('\n')
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	if _, err := o.w.Write(line.Bytes()); err != nil {
		o.log.Warn("writing to standard output failed", "err", err)
		return false
	}
	return true
}

// close stops all further writes, so that a reply racing the exit cannot
// leave half a line.
func (o *output) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
}
