package oauthedge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// maxRegistrationBytes bounds a registration's client metadata: a name,
// a few URLs and redirect URIs fit many times over.
const maxRegistrationBytes = 16 << 10

// serveRegister is dynamic client registration (RFC 7591): the workers
// check the metadata and record the client.
func (e *Edge) serveRegister(w http.ResponseWriter, r *http.Request) {
	if !e.admit(w, r, e.register, "oauth/register") {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "Send the client metadata as a JSON object of at most 16 KB.")
		return
	}
	if body = bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' || !json.Valid(body) {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "Send the client metadata as a JSON object (RFC 7591 section 2).")
		return
	}
	resp, err := e.oauth.RegisterClient(r.Context(), &taskwirev1.RegisterClientRequest{MetadataJson: string(body), ClientAddr: e.clientAddr(r)})
	if err != nil {
		e.failed(w, r, "RegisterClient", err)
		return
	}
	if oe := resp.GetError(); oe != nil {
		refuse(w, oe, false)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store") // it may hold the client's secret
	h.Set("Pragma", "no-cache")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, resp.GetClientJson())
}
