package worker

import (
	"context"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/emptypb"
)

// throughChain runs a server-streaming call (one request, answered by a
// stream, as AdminService.ExportTenant) through the very chain a unary
// call takes (unaryChain): the same identity, audit, role and disk checks
// in one place, rather than a second chain to keep in step. It reads the
// call's one request first, so the chain sees it as it sees a unary
// call's; the handler then gets the chain's context, and its error is the
// call's outcome. Health streams skip the chain, as health calls do.
func (s *Server) throughChain(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasPrefix(info.FullMethod, healthPrefix) {
		return handler(srv, ss)
	}
	if info.IsClientStream {
		return status.Errorf(codes.Unimplemented, "worker: %s streams its requests, which the worker's checks cannot see", info.FullMethod)
	}
	req, err := requestOf(info.FullMethod)
	if err != nil {
		return err
	}
	if err := ss.RecvMsg(req); err != nil {
		return err
	}
	_, err = s.chain(ss.Context(), req, &grpc.UnaryServerInfo{Server: srv, FullMethod: info.FullMethod},
		func(ctx context.Context, req any) (any, error) {
			if err := handler(srv, &receivedStream{ServerStream: ss, ctx: ctx, req: req.(proto.Message)}); err != nil {
				return nil, err
			}
			return &emptypb.Empty{}, nil
		})
	return err
}

// requestOf returns a new request message of the method full
// ("/package.Service/Method"), from the registered descriptors.
func requestOf(full string) (proto.Message, error) {
	svc, name, _ := strings.Cut(strings.TrimPrefix(full, "/"), "/")
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if err != nil || !ok {
		return nil, status.Errorf(codes.Unimplemented, "worker: no service %s", svc)
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, status.Errorf(codes.Unimplemented, "worker: no method %s", full)
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "worker: request type of %s: %v", full, err)
	}
	return mt.New().Interface(), nil
}

// receivedStream is a server stream whose one request was read already:
// the handler receives that request, and its context is the chain's.
type receivedStream struct {
	grpc.ServerStream
	ctx  context.Context
	req  proto.Message
	read bool
}

func (r *receivedStream) Context() context.Context { return r.ctx }

func (r *receivedStream) RecvMsg(m any) error {
	if r.read {
		return io.EOF
	}
	into, ok := m.(proto.Message)
	if !ok {
		return status.Errorf(codes.Internal, "worker: stream request is %T", m)
	}
	r.read = true
	proto.Merge(into, r.req)
	return nil
}
