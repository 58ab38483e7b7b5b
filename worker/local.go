package worker

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// LocalConfig configures Local.
type LocalConfig struct {
	// Fallback carries what Local does not: streaming calls, and methods
	// the worker does not serve. Required.
	Fallback grpc.ClientConnInterface
	// Interceptors run outside the worker's own chain, as those of
	// Config.ServerOptions do on the gRPC server (metrics).
	Interceptors []grpc.UnaryServerInterceptor
	// ClientStats and ServerStats see each call as the gRPC connection's
	// and the server's stats handlers would (traces); nil: none.
	ClientStats, ServerStats stats.Handler
	// Credentials add their metadata to every call, as the connection's
	// per-RPC credentials do (the internal key).
	Credentials credentials.PerRPCCredentials
}

// Local returns a connection to this worker for a front door in the same
// process (`taskwire serve`): a unary call runs the worker's interceptors
// and handler in the caller's goroutine, with no HTTP/2 framing, loopback
// socket or goroutine hand-off, which were about a sixth of a call's CPU.
// What the worker sees is what it sees over gRPC: the call's outgoing
// metadata as incoming metadata (with the credentials'), none of the
// caller's context values, its own copy of the request, and trailers
// (the progress count) sent back; errors reach the caller as gRPC
// statuses, a cancelled or expired call as Canceled or DeadlineExceeded.
func (s *Server) Local(cfg LocalConfig) (grpc.ClientConnInterface, error) {
	if cfg.Fallback == nil {
		return nil, fmt.Errorf("worker: Local needs a fallback connection")
	}
	chain := append(append([]grpc.UnaryServerInterceptor(nil), cfg.Interceptors...), s.unaryChain()...)
	return &localConn{cfg: cfg, methods: s.methods, interceptor: chainUnary(chain)}, nil
}

// localMethod is a unary method as registered, with its implementation.
type localMethod struct {
	handler grpc.MethodHandler
	impl    any
}

// localMethods collects the unary methods of the services registered on
// the server (grpc.ServiceRegistrar).
type localMethods map[string]localMethod

func (m localMethods) RegisterService(desc *grpc.ServiceDesc, impl any) {
	for _, md := range desc.Methods {
		m["/"+desc.ServiceName+"/"+md.MethodName] = localMethod{handler: md.Handler, impl: impl}
	}
}

type localConn struct {
	cfg         LocalConfig
	methods     localMethods
	interceptor grpc.UnaryServerInterceptor
}

func (c *localConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	return c.cfg.Fallback.NewStream(ctx, desc, method, opts...)
}

func (c *localConn) Invoke(ctx context.Context, method string, req, reply any, opts ...grpc.CallOption) (err error) {
	m, ok := c.methods[method]
	in, okIn := req.(proto.Message)
	out, okOut := reply.(proto.Message)
	if !ok || !okIn || !okOut {
		return c.cfg.Fallback.Invoke(ctx, method, req, reply, opts...)
	}
	info := &stats.RPCTagInfo{FullMethodName: method}
	if h := c.cfg.ClientStats; h != nil {
		ctx = h.TagRPC(ctx, info)
		h.HandleRPC(ctx, &stats.Begin{Client: true, BeginTime: time.Now()})
		defer func() { h.HandleRPC(ctx, &stats.End{Client: true, EndTime: time.Now(), Error: err}) }()
	}
	md, _ := metadata.FromOutgoingContext(ctx) // a copy
	if md == nil {
		md = metadata.MD{}
	}
	if cr := c.cfg.Credentials; cr != nil {
		extra, err := cr.GetRequestMetadata(ctx, method)
		if err != nil {
			return status.Errorf(codes.Unauthenticated, "worker: call credentials: %v", err)
		}
		for k, v := range extra {
			md.Set(k, v)
		}
	}
	call := &localStream{method: method}
	sctx := grpc.NewContextWithServerTransportStream(metadata.NewIncomingContext(valueless{ctx}, md), call)
	if h := c.cfg.ServerStats; h != nil {
		sctx = h.TagRPC(sctx, info)
		h.HandleRPC(sctx, &stats.Begin{BeginTime: time.Now()})
	}
	resp, herr := m.handler(m.impl, sctx, func(v any) error {
		into, ok := v.(proto.Message)
		if !ok {
			return status.Errorf(codes.Internal, "worker: request of %s is %T", method, v)
		}
		proto.Merge(into, in)
		return nil
	}, c.interceptor)
	herr = serverStatus(herr)
	if h := c.cfg.ServerStats; h != nil {
		h.HandleRPC(sctx, &stats.End{EndTime: time.Now(), Error: herr})
	}
	call.deliver(opts)
	if ctx.Err() != nil { // as a gRPC client says of a call it gave up on
		return status.FromContextError(ctx.Err()).Err()
	}
	if herr != nil {
		return herr
	}
	msg, ok := resp.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "worker: %s answered %T", method, resp)
	}
	proto.Reset(out)
	proto.Merge(out, msg)
	return nil
}

// serverStatus is err as a gRPC server sends it: a status, or the status
// of a context error, or Unknown.
func serverStatus(err error) error {
	if err == nil {
		return nil
	}
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	return status.FromContextError(err).Err()
}

// valueless keeps a context's deadline and cancellation and hides its
// values: the worker learns of the caller only through metadata, as over
// the network.
type valueless struct{ context.Context }

func (valueless) Value(any) any { return nil }

// localStream is the grpc.ServerTransportStream of a local call: it keeps
// the header and trailer the handler sets, for the caller.
type localStream struct {
	method          string
	header, trailer metadata.MD
}

func (s *localStream) Method() string { return s.method }

func (s *localStream) SetHeader(md metadata.MD) error {
	s.header = metadata.Join(s.header, md)
	return nil
}

func (s *localStream) SendHeader(md metadata.MD) error { return s.SetHeader(md) }

func (s *localStream) SetTrailer(md metadata.MD) error {
	s.trailer = metadata.Join(s.trailer, md)
	return nil
}

// deliver hands the header and trailer to the call options that asked.
func (s *localStream) deliver(opts []grpc.CallOption) {
	for _, o := range opts {
		switch o := o.(type) {
		case grpc.HeaderCallOption:
			*o.HeaderAddr = s.header
		case grpc.TrailerCallOption:
			*o.TrailerAddr = s.trailer
		}
	}
}

// chainUnary runs interceptors in order around a handler, as
// grpc.ChainUnaryInterceptor does.
func chainUnary(interceptors []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		var next func(i int) grpc.UnaryHandler
		next = func(i int) grpc.UnaryHandler {
			if i == len(interceptors) {
				return handler
			}
			return func(ctx context.Context, req any) (any, error) {
				return interceptors[i](ctx, req, info, next(i+1))
			}
		}
		return next(0)(ctx, req)
	}
}
