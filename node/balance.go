package node

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/health" // client-side health checking, named by workerServiceConfig
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/worker"
)

// workerServiceConfig balances a front door's calls across every worker
// address, round robin, and sends none to a worker whose health (the
// server as a whole, grpc.health.v1) is not SERVING: a draining worker
// gets no new calls, although its connection is still open.
const workerServiceConfig = `{"loadBalancingConfig":[{"round_robin":{}}],"healthCheckConfig":{"serviceName":""}}`

// staticScheme is the resolver scheme of a --workers list of addresses.
const staticScheme = "taskwire-workers"

// workerTarget turns a --workers setting into a gRPC target. A target
// with a scheme (dns:///workers:9090, which re-resolves as workers come
// and go, or passthrough:///host:port) is used as it is; a comma-separated
// list of host:port gets a resolver of its own that names them all.
func workerTarget(spec string) (string, []grpc.DialOption, error) {
	if strings.Contains(spec, "://") {
		return spec, nil, nil
	}
	addrs := addrList(spec)
	if len(addrs) == 0 {
		return "", nil, fmt.Errorf("--workers %q names no worker: use host:port[,host:port…] or dns:///name:port", spec)
	}
	state := resolver.State{}
	for _, a := range addrs {
		state.Addresses = append(state.Addresses, resolver.Address{Addr: a})
	}
	r := manual.NewBuilderWithScheme(staticScheme)
	r.InitialState(state)
	return staticScheme + ":///workers", []grpc.DialOption{grpc.WithResolvers(r)}, nil
}

// dialWorkers returns the front door's connection to the workers of spec,
// every call carrying the internal key, with extra options (telemetry's)
// first. It never goes idle, so that readiness tells what the next call
// will meet. Its flow-control windows are the worker's (worker.Window).
func dialWorkers(spec, internalKey string, extra ...grpc.DialOption) (*grpc.ClientConn, error) {
	target, opts, err := workerTarget(spec)
	if err != nil {
		return nil, err
	}
	opts = append(slices.Concat(extra, opts),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(identity.InternalKey(internalKey)),
		grpc.WithDefaultServiceConfig(workerServiceConfig),
		grpc.WithIdleTimeout(0),
		grpc.WithConnectParams(workerBackoff),
		grpc.WithInitialWindowSize(worker.Window),
		grpc.WithInitialConnWindowSize(worker.Window))
	return grpc.NewClient(target, opts...)
}

// workerBackoff retries a worker that went away at most a couple of
// seconds apart (gRPC's default grows to two minutes), so a restarted
// worker takes calls again soon after it is up.
var workerBackoff = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 250 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
	MinConnectTimeout: 5 * time.Second,
}

// waitForWorker waits until conn has a healthy worker, or ctx ends: a
// front door started beside its workers (compose, a rollout) loads the
// keys and revocations from the first that is up.
func waitForWorker(ctx context.Context, conn *grpc.ClientConn) error {
	conn.Connect()
	for {
		s := conn.GetState()
		if s == connectivity.Ready {
			return nil
		}
		if !conn.WaitForStateChange(ctx, s) {
			return fmt.Errorf("no worker at %s became ready (last state %s): %w", conn.Target(), s, ctx.Err())
		}
	}
}

// addrList splits a comma-separated list of addresses, dropping blanks.
func addrList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// HostPort is addr as a client on this machine dials it: a wildcard or
// missing host becomes 127.0.0.1.
func HostPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}
