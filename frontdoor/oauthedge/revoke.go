package oauthedge

import (
	"net/http"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// serveRevoke is token revocation (RFC 7009): a client revokes its
// refresh or access token, and with it the grant. An unknown token is
// answered 200 like a revoked one, so the endpoint tells nothing.
func (e *Edge) serveRevoke(w http.ResponseWriter, r *http.Request) {
	if !e.admit(w, r, e.token, "oauth/revoke") {
		return
	}
	form, bad := readForm(w, r)
	if bad == "" && form.Get("token") == "" {
		bad = "Send the token to revoke in the token parameter."
	}
	var auth clientAuth
	if bad == "" {
		auth, bad = authOf(r, form)
	}
	if bad != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", bad)
		return
	}
	resp, err := e.oauth.Revoke(r.Context(), &taskwirev1.RevokeRequest{
		Token: form.Get("token"), TokenTypeHint: form.Get("token_type_hint"),
		ClientId: auth.id, ClientSecret: auth.secret, AuthMethod: auth.method,
	})
	if err != nil {
		e.failed(w, r, "Revoke", err)
		return
	}
	if oe := resp.GetError(); oe != nil {
		refuse(w, oe, auth.basic())
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
