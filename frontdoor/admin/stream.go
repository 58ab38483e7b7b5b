package admin

import (
	"context"
	"errors"
	"io"
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
)

// The admin API's one streaming method is ExportTenant: a file, sent in
// chunks. Over gRPC the edge passes the chunks on as they come; over JSON
// it answers with the file itself.

// openStream starts the server-streaming method m at a worker for p,
// having sent its one request.
func (e *Edge) openStream(ctx context.Context, p principal, m method, in proto.Message) (grpc.ClientStream, error) {
	cs, err := e.cfg.Conn.NewStream(outgoing(ctx, p), &grpc.StreamDesc{StreamName: m.name, ServerStreams: true}, m.full)
	if err == nil {
		if err = cs.SendMsg(in); err == nil {
			err = cs.CloseSend()
		}
	}
	return cs, e.reachable(ctx, m, err)
}

// reachable is err as the caller is to see it: a failure that is no
// status a worker sent becomes Unavailable, since its text may name hosts.
func (e *Edge) reachable(ctx context.Context, m method, err error) error {
	if err != nil && status.Code(err) == codes.Unknown {
		e.log.ErrorContext(ctx, "admin: forwarding failed", "method", m.name, "err", err)
		return status.Error(codes.Unavailable, "the admin API could not reach a worker: try again")
	}
	return err
}

// serveFile answers a JSON call of the streaming method m with the file
// its chunks make up (SendExport). The first chunk is read before
// anything is sent, so a refusal is a JSON error like any other.
func (e *Edge) serveFile(w http.ResponseWriter, r *http.Request, p principal, m method, in proto.Message) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	cs, err := e.openStream(ctx, p, m, in)
	var first adminv1.ExportTenantResponse
	if err == nil {
		err = e.reachable(ctx, m, cs.RecvMsg(&first))
	}
	if err != nil {
		writeStatus(w, err)
		return
	}
	next := func() (*adminv1.ExportTenantResponse, error) {
		var chunk adminv1.ExportTenantResponse
		return &chunk, cs.RecvMsg(&chunk)
	}
	if err := SendExport(w, &first, next); err != nil {
		e.log.WarnContext(ctx, "admin: a file's stream broke off", "method", m.name, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// streamForwarder is the gRPC handler of the streaming method m: it
// authenticates the call as authenticateRPC does a unary one, then passes
// the worker's messages on.
func (e *Edge) streamForwarder(m method) grpc.StreamDesc {
	return grpc.StreamDesc{StreamName: m.name, ServerStreams: true, Handler: func(_ any, ss grpc.ServerStream) error {
		ctx := ss.Context()
		in := m.in.New().Interface()
		if err := ss.RecvMsg(in); err != nil {
			return err
		}
		addr := clientAddr(ctx)
		if retry, err := e.throttled(addr); err != nil {
			return grpcLimited(ctx, err, retry)
		}
		md, _ := metadata.FromIncomingContext(ctx)
		p, err := e.authenticate(ctx, md.Get("authorization"))
		if err != nil {
			e.failed(addr, err)
			return err
		}
		if retry, err := e.admit(p, in); err != nil {
			return grpcLimited(ctx, err, retry)
		}
		cs, err := e.openStream(ctx, p, m, in)
		if err != nil {
			return err
		}
		for {
			out := m.out.New().Interface()
			err := cs.RecvMsg(out)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return e.reachable(ctx, m, err)
			}
			if err := ss.SendMsg(out); err != nil {
				return err
			}
		}
	}}
}
