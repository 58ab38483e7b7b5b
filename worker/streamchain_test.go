package worker

import (
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// streamingAdmin answers ExportTenant with two chunks naming the tenant
// asked for and whether the caller reached it as an operator, or with a
// domain error for the tenant "gone".
type streamingAdmin struct {
	adminv1.UnimplementedAdminServiceServer
	calls int
}

func (s *streamingAdmin) ExportTenant(req *adminv1.ExportTenantRequest, stream adminv1.AdminService_ExportTenantServer) error {
	s.calls++
	if req.GetTenant() == "gone" {
		return domainerr.New(domainerr.NotFound, "no tenant gone")
	}
	who := "member"
	if identity.IsOperator(stream.Context()) {
		who = "operator"
	}
	for _, part := range []string{req.GetTenant(), who} {
		if err := stream.Send(&adminv1.ExportTenantResponse{Data: []byte(part)}); err != nil {
			return err
		}
	}
	return nil
}

// TestStreamsGoThroughTheChain: a server-streaming call is checked as a
// unary one is: its one request reaches the handler with the caller the
// identity step put into the context; a call with no caller never
// reaches it; and a domain error becomes its status, as the errors step
// makes it for unary calls.
func TestStreamsGoThroughTheChain(t *testing.T) {
	const key = "front-door-key"
	admin := &streamingAdmin{}
	w := startWorker(t, func(c *Config) {
		c.InternalKey = key
		c.Access = noAccess{}
		c.Tokens = &fakeTokens{}
		c.OperatorServices = []string{adminv1.AdminService_ServiceDesc.ServiceName}
		c.Register = []func(grpc.ServiceRegistrar){func(r grpc.ServiceRegistrar) { adminv1.RegisterAdminServiceServer(r, admin) }}
	})
	client := adminv1.NewAdminServiceClient(w.conn)
	operator := identity.AppendOperatorToOutgoing(metadata.AppendToOutgoingContext(t.Context(), identity.MDInternalKey, key))

	got, err := receiveAll(client.ExportTenant(operator, &adminv1.ExportTenantRequest{Tenant: "acme"}))
	if err != nil || got != "acme operator " {
		t.Errorf("an operator's export = %q, %v; want the request and the operator through", got, err)
	}
	if _, err := receiveAll(client.ExportTenant(t.Context(), &adminv1.ExportTenantRequest{Tenant: "acme"})); status.Code(err) != codes.Unauthenticated {
		t.Errorf("an export with no caller = %v, want Unauthenticated", err)
	}
	if admin.calls != 1 {
		t.Errorf("the handler ran %d times, want once: a call with no caller must not reach it", admin.calls)
	}
	if _, err := receiveAll(client.ExportTenant(operator, &adminv1.ExportTenantRequest{Tenant: "gone"})); status.Code(err) != codes.NotFound || status.Convert(err).Message() != "no tenant gone" {
		t.Errorf("an export of a missing tenant = %v, want NotFound in the service's words", err)
	}
}

// receiveAll reads a stream to its end, each message's data followed by
// a space.
func receiveAll(stream grpc.ServerStreamingClient[adminv1.ExportTenantResponse], err error) (string, error) {
	if err != nil {
		return "", err
	}
	var out string
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out += string(m.GetData()) + " "
	}
}
