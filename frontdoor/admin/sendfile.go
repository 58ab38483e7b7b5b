package admin

import (
	"errors"
	"io"
	"mime"
	"net/http"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
)

// SendExport answers with the file a tenant's export streams, as an
// attachment: first is its first chunk, read by the caller before
// anything was sent (so that a refusal could still be an error of the
// caller's own kind), next reads each further one. It returns the error
// that broke the stream off, if one did: the caller then aborts the
// response (panic(http.ErrAbortHandler)), so the client sees a transfer
// cut short rather than a file that looks whole (an importer would refuse
// it anyway: its manifest is written last). The JSON admin API and the
// console both send exports this way.
func SendExport(w http.ResponseWriter, first *adminv1.ExportTenantResponse, next func() (*adminv1.ExportTenantResponse, error)) error {
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if first.GetFileName() != "" {
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": first.GetFileName()}))
	}
	for chunk := first; ; {
		if _, err := w.Write(chunk.GetData()); err != nil {
			return nil // the client went away: nothing to abort
		}
		var err error
		if chunk, err = next(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}
