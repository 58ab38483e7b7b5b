package node

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// natsBus is the NATS connection the front door and worker share: to a remote
// server when a URL is given, otherwise to a server inside this process
// that listens on no port unless asked (4222 may belong to another server).
// The embedded server runs JetStream, which keeps the front doors' news of
// sessions (internal/events) for replicas that start later.
type natsBus struct {
	Conn     *nats.Conn
	closed   chan struct{}
	embedded *server.Server
	storeDir string // the embedded JetStream's, removed on Close
}

// startBus connects to the NATS server at url, or with no url starts one
// in process, listening on listen when set. A remote server's outages are
// logged on log, once when the connection is lost and once when it is
// back, not by each call that could not announce something meanwhile.
func startBus(url, listen string, log *slog.Logger) (*natsBus, error) {
	b := &natsBus{closed: make(chan struct{})}
	onClose := nats.ClosedHandler(func(*nats.Conn) { close(b.closed) })
	if url != "" {
		var lost atomic.Int64 // unix nanoseconds of the last loss
		nc, err := nats.Connect(url, nats.Name("taskwire"), nats.Timeout(ConnectTimeout),
			nats.MaxReconnects(-1), nats.ReconnectWait(reconnectWait), nats.ReconnectJitter(reconnectJitter, reconnectJitter),
			nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
				lost.Store(time.Now().UnixNano())
				log.Warn("NATS connection lost: calls go on, but progress, revocations, key nudges and list changes wait until it is back", "err", err)
			}),
			nats.ReconnectHandler(func(c *nats.Conn) {
				log.Info("NATS connection back", "server", c.ConnectedUrlRedacted(), "after", time.Since(time.Unix(0, lost.Load())).Round(time.Millisecond))
			}),
			onClose)
		if err != nil {
			return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
		}
		b.Conn = nc
		return b, nil
	}
	opts, err := embeddedOptions(listen)
	if err != nil {
		return nil, err
	}
	if err := b.startEmbedded(opts, onClose); err != nil {
		return nil, err
	}
	return b, nil
}

// embeddedOptions are the in-process server's: JetStream, no signals, no
// logs, and no port unless listen names one.
func embeddedOptions(listen string) (*server.Options, error) {
	opts := &server.Options{ServerName: "taskwire-embedded", DontListen: true, NoSigs: true, NoLog: true, JetStream: true}
	if listen == "" {
		return opts, nil
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("nats-listen %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("nats-listen %q: bad port", listen)
	}
	opts.DontListen, opts.Host, opts.Port = false, host, p
	return opts, nil
}

// startEmbedded starts the in-process server of opts and connects to it.
func (b *natsBus) startEmbedded(opts *server.Options, onClose nats.Option) error {
	// JetStream insists on a store directory even though every stream
	// here is in memory. A fresh temporary one suits: nothing in it is
	// meant to outlive the process, and no two processes share it. (The
	// data directory is not given to startBus, and stays free of it.)
	dir, err := os.MkdirTemp("", "taskwire-nats-")
	if err != nil {
		return fmt.Errorf("embedded NATS: %w", err)
	}
	opts.StoreDir, b.storeDir = dir, dir
	ns, err := startServer(opts)
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	nc, err := nats.Connect(ns.ClientURL(), nats.InProcessServer(ns), nats.Name("taskwire"), onClose)
	if err != nil {
		ns.Shutdown()
		ns.WaitForShutdown()
		os.RemoveAll(dir)
		return fmt.Errorf("connect to embedded NATS: %w", err)
	}
	b.Conn, b.embedded = nc, ns
	return nil
}

// startServer starts the in-process server and waits until it takes
// connections.
func startServer(opts *server.Options) (*server.Server, error) {
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(ConnectTimeout) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("embedded NATS did not start within %v", ConnectTimeout)
	}
	return ns, nil
}

// Close drains the connection and stops the embedded server, if any.
func (b *natsBus) Close() {
	if b.Conn.Drain() == nil {
		select {
		case <-b.closed:
		case <-time.After(5 * time.Second):
			b.Conn.Close()
		}
	}
	if b.embedded != nil {
		b.embedded.Shutdown()
		b.embedded.WaitForShutdown()
		os.RemoveAll(b.storeDir)
	}
}

// reconnectWait and reconnectJitter pace the attempts to reach a NATS
// server that went away: progress, revocations and list changes resume
// within half a second of its return (nats.go's default of 2 s left them
// stalled for up to that long), and the jitter keeps a fleet of
// processes from knocking all at once.
const (
	reconnectWait   = 250 * time.Millisecond
	reconnectJitter = 250 * time.Millisecond
)

// ConnectTimeout bounds how long startup (or a command) waits for NATS.
const ConnectTimeout = 10 * time.Second
