package console

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
)

// exportTenant sends everything the tenant holds as one file
// (AdminService.ExportTenant), for an owner or admin to keep or to import
// into another Taskwire. It is a POST, like every change, though it
// changes nothing: an export discloses the whole tenant, so it must come
// from the console's own form. The first chunk is read before anything is
// sent, so a refusal is a page like any other; a failure later breaks the
// download off, and the browser shows it failed rather than saving a file
// that looks whole.
func (c *Console) exportTenant(w http.ResponseWriter, r *http.Request, v *visit) {
	ctx, cancel := context.WithCancel(v.ctx(r))
	defer cancel()
	stream, err := c.admin.ExportTenant(ctx, &adminv1.ExportTenantRequest{Tenant: v.tenant()})
	var first *adminv1.ExportTenantResponse
	if err == nil {
		first, err = stream.Recv()
	}
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": first.GetFileName()}))
	h.Set("Cache-Control", "no-store")
	if _, err := w.Write(first.GetData()); err != nil {
		return
	}
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			c.log.WarnContext(ctx, "console: an export broke off", "tenant", v.tenant(), "err", err)
			panic(http.ErrAbortHandler)
		}
		if _, err := w.Write(chunk.GetData()); err != nil {
			return
		}
	}
}
