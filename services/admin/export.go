package admin

import (
	"bufio"
	"time"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenantarchive"
)

// exportChunk is the size of the pieces an export is sent in: large
// enough that a big tenant is not a flood of messages, well under gRPC's
// 4 MiB message limit.
const exportChunk = 256 << 10

// ExportTenant implements adminv1.AdminServiceServer: the archive
// tenantarchive.Export writes, sent as it is written, so a tenant of any
// size costs the worker one chunk of memory. Owners and admins of the
// tenant, and operators, as for everything managed here (manage).
func (s *Service) ExportTenant(req *adminv1.ExportTenantRequest, stream adminv1.AdminService_ExportTenantServer) error {
	ctx := stream.Context()
	a, err := s.actor(ctx)
	if err == nil {
		err = s.exportTenant(a, req, stream)
	}
	return store.DomainError(ctx, err)
}

func (s *Service) exportTenant(a actor, req *adminv1.ExportTenantRequest, stream adminv1.AdminService_ExportTenantServer) error {
	ctx := stream.Context()
	t, _, err := s.manage(ctx, a, req.GetTenant())
	if err != nil {
		return err
	}
	cw := &chunkSender{stream: stream, name: ExportFileName(t.Slug, s.now())}
	bw := bufio.NewWriterSize(cw, exportChunk)
	if _, err := tenantarchive.Export(ctx, s.client, t.Slug, bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return cw.finish()
}

// ExportFileName is the name an export of tenant at is offered under:
// the console and the JSON API save it so.
func ExportFileName(tenant string, at time.Time) string {
	return "taskwire-export-" + tenant + "-" + at.UTC().Format("20060102T1504Z") + ".zip"
}

// chunkSender sends what is written to it as ExportTenantResponse
// messages, the file's name on the first.
type chunkSender struct {
	stream adminv1.AdminService_ExportTenantServer
	name   string
	sent   bool
}

func (c *chunkSender) Write(p []byte) (int, error) {
	msg := &adminv1.ExportTenantResponse{Data: p}
	if !c.sent {
		msg.FileName = c.name
	}
	if err := c.stream.Send(msg); err != nil {
		return 0, err
	}
	c.sent = true
	return len(p), nil
}

// finish sends the name alone when nothing was written, which an export
// never is; it keeps "the first message names the file" true.
func (c *chunkSender) finish() error {
	if c.sent {
		return nil
	}
	return c.stream.Send(&adminv1.ExportTenantResponse{FileName: c.name})
}
