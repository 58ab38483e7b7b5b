package node

import (
	"context"
	"fmt"
	"net"
)

// FrontdoorProcess is what `taskwire frontdoor` runs: the front door
// node, its NATS connection and its metrics.
type FrontdoorProcess struct {
	cfg     FrontdoorProcessConfig
	metrics *sideServer
	bus     *natsBus
	lis     net.Listener
	node    *Frontdoor
}

// FrontdoorProcessConfig is a front door's settings: Node without what
// the process makes itself (Listener, NATS, keys), and where to find
// those. The command checks its flags, Validate what a start needs.
type FrontdoorProcessConfig struct {
	Node               FrontdoorConfig
	Addr               string // the HTTP listen address
	NATS               string // the NATS server's URL
	InternalKeyFile    string
	SigningKey         string
	RetiredKeys        []string
	OperatorSecretFile string // empty: no operator secret
	MetricsAddr        string // empty: no metrics
	Pprof              bool
}

// Validate refuses settings a front door cannot start from, before
// anything is opened; what the process makes itself (Node's Listener,
// NATS and keys) is checked by NewFrontdoor. An empty NATS would start a
// server in this process, which no worker would hear.
func (cfg FrontdoorProcessConfig) Validate() error {
	return requireAll("front door",
		setting{"Node.Log", cfg.Node.Log != nil}, setting{"Node.Telemetry", cfg.Node.Telemetry != nil},
		setting{"Node.PublicURL", cfg.Node.PublicURL != ""}, setting{"Node.Worker", cfg.Node.Worker != ""},
		setting{"Addr", cfg.Addr != ""}, setting{"NATS", cfg.NATS != ""},
		setting{"InternalKeyFile", cfg.InternalKeyFile != ""}, setting{"SigningKey", cfg.SigningKey != ""})
}

// StartFrontdoorProcess loads the keys and secrets, serves metrics (from
// the start, so a front door waiting for its first worker can be watched
// too), listens, connects to NATS and starts the front door node. A start
// that fails stops what it had started.
func StartFrontdoorProcess(ctx context.Context, cfg FrontdoorProcessConfig) (_ *FrontdoorProcess, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.loadKeys(); err != nil {
		return nil, err
	}
	f := &FrontdoorProcess{cfg: cfg}
	defer func() {
		if err != nil {
			f.undo()
		}
	}()
	if f.metrics, err = serveMetrics(cfg.MetricsAddr, cfg.Pprof, cfg.Node.Telemetry, cfg.Node.Log); err != nil {
		return nil, err
	}
	if f.lis, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	if f.bus, err = startBus(cfg.NATS, "", cfg.Node.Log); err != nil {
		return nil, err
	}
	cfg.Node.Telemetry.InstrumentNATS(f.bus.Conn)
	node := cfg.Node
	node.Listener, node.NATS = f.lis, f.bus.Conn
	if f.node, err = NewFrontdoor(node); err == nil {
		err = f.node.Start(context.WithoutCancel(ctx))
	}
	if err != nil {
		f.node = nil
		return nil, fmt.Errorf("front door: %w", err)
	}
	return f, nil
}

// loadKeys reads the internal key, the root keys and the operator secret
// into cfg.Node.
func (cfg *FrontdoorProcessConfig) loadKeys() (err error) {
	n := &cfg.Node
	if n.InternalKey, err = loadInternalKey(cfg.InternalKeyFile); err != nil {
		return err
	}
	if n.Key, n.Retired, err = loadRootKey(cfg.SigningKey, cfg.RetiredKeys); err != nil {
		return err
	}
	if cfg.OperatorSecretFile != "" {
		n.Operator, _, err = LoadOperatorSecret(cfg.OperatorSecretFile, false)
	}
	return err
}

// undo stops what a failed start had started.
func (f *FrontdoorProcess) undo() {
	if f.lis != nil {
		f.lis.Close()
	}
	if f.bus != nil {
		f.bus.Close()
	}
	f.metrics.Close()
}

// Endpoint is the MCP endpoint's URL.
func (f *FrontdoorProcess) Endpoint() string { return f.node.Endpoint() }

// Addr is the HTTP listen address.
func (f *FrontdoorProcess) Addr() string { return f.lis.Addr().String() }

// MetricsAddr is where metrics are served, or "" for nowhere.
func (f *FrontdoorProcess) MetricsAddr() string { return f.metrics.Addr() }

// Done yields the error that ended serving HTTP.
func (f *FrontdoorProcess) Done() <-chan error { return f.node.Done() }

// Stop stops accepting, lets open requests and streams finish within
// ctx, then closes NATS and the metrics.
func (f *FrontdoorProcess) Stop(ctx context.Context) error {
	err := f.node.Stop(ctx)
	f.bus.Close()
	f.metrics.Close()
	return err
}
