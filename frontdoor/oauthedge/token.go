package oauthedge

import (
	"net/http"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// tokenResponse is a successful token response (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope,omitempty"`
}

// serveToken is the token endpoint: the authorization_code and
// refresh_token grants, checked by the workers.
func (e *Edge) serveToken(w http.ResponseWriter, r *http.Request) {
	if !e.admit(w, r, e.token, "oauth/token") || e.throttled(w, r) {
		return
	}
	req, auth, ok := e.tokenRequest(w, r)
	if !ok {
		return
	}
	resp, err := e.oauth.Token(r.Context(), req)
	if err != nil {
		e.failed(w, r, "Token", err)
		return
	}
	if oe := resp.GetError(); oe != nil {
		if oe.GetCode() == "invalid_client" {
			e.cfg.Throttle.Failed(e.cfg.Throttle.ClientAddr(r)) // a guessed client secret
		}
		refuse(w, oe, auth.basic())
		return
	}
	writeJSON(w, http.StatusOK, tokenResponse{
		AccessToken: resp.GetAccessToken(), TokenType: "Bearer", ExpiresIn: resp.GetExpiresIn(),
		RefreshToken: resp.GetRefreshToken(), Scope: resp.GetScope(),
	})
}

// tokenRequest reads the form of a token request and the client's
// credentials; a malformed request is answered invalid_request and ok is
// false.
func (e *Edge) tokenRequest(w http.ResponseWriter, r *http.Request) (_ *taskwirev1.TokenRequest, _ clientAuth, ok bool) {
	form, bad := readForm(w, r)
	if bad != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", bad)
		return nil, clientAuth{}, false
	}
	auth, bad := authOf(r, form)
	if bad != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", bad)
		return nil, clientAuth{}, false
	}
	return &taskwirev1.TokenRequest{
		GrantType:    form.Get("grant_type"),
		Code:         form.Get("code"),
		RedirectUri:  form.Get("redirect_uri"),
		CodeVerifier: form.Get("code_verifier"),
		RefreshToken: form.Get("refresh_token"),
		Resource:     form.Get("resource"),
		Scope:        form.Get("scope"),
		ClientId:     auth.id,
		ClientSecret: auth.secret,
		AuthMethod:   auth.method,
		ClientAddr:   e.clientAddr(r),
	}, auth, true
}
