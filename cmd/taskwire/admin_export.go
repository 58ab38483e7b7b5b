package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/tenantarchive"
)

// tenantsExport downloads a tenant's archive (ExportTenant) into a new
// file, and checks it whole before saying so: a download cut short is
// removed, never left to be imported.
func (a *adminCmd) tenantsExport(args []string) error {
	out := a.fs.String("out", "", "the file to write, which must not exist (required), e.g. acme.zip")
	pos, err := a.parse(args, 0, 1)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		a.tenant = pos[0]
	}
	if *out == "" {
		return errors.New("name the file to write with --out FILE, e.g. --out acme.zip")
	}
	hresp, err := a.send(a.ctx, "ExportTenant", &adminv1.ExportTenantRequest{Tenant: a.tenant})
	if err != nil {
		return err
	}
	defer hresp.Body.Close()
	err = archive.CreateFile(*out, func(f *os.File) error {
		if _, err := io.Copy(f, hresp.Body); err != nil {
			return fmt.Errorf("the download broke off (%w): nothing was saved; run the command again", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	m, err := checkExport(*out)
	if err != nil {
		os.Remove(*out)
		return fmt.Errorf("%w; nothing was saved", err)
	}
	fmt.Fprintf(a.stdout, "Exported tenant %s to %s: %s.\nImport it into any Taskwire with: taskwire import --from %s\n",
		m.Tenant, *out, m.Counts, *out)
	return nil
}

// exportSummary is what the command says of an archive it checked.
type exportSummary struct{ Tenant, Counts string }

// checkExport opens the archive at path and checks every entry against
// its manifest.
func checkExport(path string) (exportSummary, error) {
	r, err := archive.OpenFile(path, tenantarchive.Format)
	if err != nil {
		return exportSummary{}, err
	}
	defer r.Close()
	if err := r.Verify(); err != nil {
		return exportSummary{}, err
	}
	m := r.Manifest()
	var meta tenantarchive.Meta
	if err := json.Unmarshal(m.Meta, &meta); err != nil {
		return exportSummary{}, fmt.Errorf("%s has no tenant in its manifest: %w", path, err)
	}
	return exportSummary{Tenant: meta.Tenant.Slug, Counts: recordCounts(func(name string) int64 {
		e, _ := m.Entry(name)
		return e.Records
	})}, nil
}
