package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// newConns tracks the connections of an http.Server that have not yet sent
// a request. http.Server.Shutdown treats such a connection as busy for its
// first 5 seconds, so a client that opened a spare connection would hold
// every shutdown for that long although no request can be lost on it.
type newConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (n *newConns) track(c net.Conn, state http.ConnState) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conns == nil {
		n.conns = map[net.Conn]struct{}{}
	}
	if state == http.StateNew {
		n.conns[c] = struct{}{}
	} else {
		delete(n.conns, c)
	}
}

func (n *newConns) closeAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.conns {
		c.Close()
	}
}

// shutdownHTTP stops srv accepting, closes its idle and request-less
// connections, and waits for requests in flight until ctx ends.
func shutdownHTTP(ctx context.Context, srv *http.Server, idle *newConns) error {
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	// Repeat until Shutdown returns: a connection accepted just before the
	// listener closed is new too.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		idle.closeAll()
		select {
		case err := <-done:
			return err
		case <-tick.C:
		}
	}
}
