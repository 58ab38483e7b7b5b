package admin

import (
	"context"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/proto"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
)

// isGRPC reports whether r is a gRPC call: HTTP/2 with a gRPC content
// type. Such calls reach the front door's port over HTTP/2 without TLS
// (prior knowledge), as grpc-go and grpcurl -plaintext send them.
func isGRPC(r *http.Request) bool {
	return r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
}

// newGRPCServer returns the gRPC server of the edge: AdminService, each
// method forwarding to a worker after the authentication interceptor, and
// server reflection, so grpcurl needs no .proto files. Reflection tells
// only the public contract; it needs no credential.
func (e *Edge) newGRPCServer() *grpc.Server {
	srv := grpc.NewServer(grpc.UnaryInterceptor(e.authenticateRPC))
	desc := grpc.ServiceDesc{
		ServiceName: adminv1.AdminService_ServiceDesc.ServiceName,
		HandlerType: (*any)(nil),
		Metadata:    adminv1.AdminService_ServiceDesc.Metadata,
	}
	for _, m := range e.methods {
		if m.stream {
			desc.Streams = append(desc.Streams, e.streamForwarder(m))
			continue
		}
		desc.Methods = append(desc.Methods, e.forwarder(m))
	}
	srv.RegisterService(&desc, e)
	reflection.Register(srv)
	return srv
}

// forwarder is the handler of one method: it decodes the request into
// the method's message and forwards it for the principal the interceptor
// found.
func (e *Edge) forwarder(m method) grpc.MethodDesc {
	return grpc.MethodDesc{MethodName: m.name, Handler: func(srv any, ctx context.Context, dec func(any) error, icpt grpc.UnaryServerInterceptor) (any, error) {
		in := m.in.New().Interface()
		if err := dec(in); err != nil {
			return nil, err
		}
		forward := func(ctx context.Context, req any) (any, error) {
			p, _ := ctx.Value(principalKey{}).(principal)
			out := m.out.New().Interface()
			if err := e.invoke(ctx, p, m, req, out); err != nil {
				return nil, err
			}
			return out, nil
		}
		return icpt(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: m.full}, forward)
	}}
}

type principalKey struct{}

// authenticateRPC authenticates a gRPC call by its authorization
// metadata and charges it to its limits, as serveJSON does.
func (e *Edge) authenticateRPC(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	addr := clientAddr(ctx)
	if retry, err := e.throttled(addr); err != nil {
		return nil, grpcLimited(ctx, err, retry)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	p, err := e.authenticate(ctx, md.Get("authorization"))
	if err != nil {
		e.failed(addr, err)
		return nil, err
	}
	if in, ok := req.(proto.Message); ok {
		if retry, err := e.admit(p, in); err != nil {
			return nil, grpcLimited(ctx, err, retry)
		}
	}
	return handler(context.WithValue(ctx, principalKey{}, p), req)
}

// serveGRPC serves a gRPC call. grpc-go needs an http.Flusher, which the
// front door's response writers reach through http.ResponseController.
func (e *Edge) serveGRPC(w http.ResponseWriter, r *http.Request) {
	e.grpc.ServeHTTP(flusher{w}, e.withClientAddr(r))
}

type flusher struct{ http.ResponseWriter }

func (f flusher) Flush() { _ = http.NewResponseController(f.ResponseWriter).Flush() }

func (f flusher) Unwrap() http.ResponseWriter { return f.ResponseWriter }
