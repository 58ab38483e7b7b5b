package console

import (
	"context"
	"net/http"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/frontdoor/admin"
)

// exportTenant sends everything the tenant holds as one file
// (AdminService.ExportTenant), for an owner or admin to keep or to import
// into another Taskwire. It is a POST, like every change, though it
// changes nothing: an export discloses the whole tenant, so it must come
// from the console's own form. The first chunk is read before anything is
// sent, so a refusal is a page like any other; a failure later breaks the
// download off (admin.SendExport), and the browser shows it failed rather
// than saving a file that looks whole.
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
	if err := admin.SendExport(w, first, stream.Recv); err != nil {
		c.log.WarnContext(ctx, "console: an export broke off", "tenant", v.tenant(), "err", err)
		panic(http.ErrAbortHandler)
	}
}
