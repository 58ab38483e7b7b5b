package oidcsignin

import "net/http"

// stateCookieName names the cookie carrying a sign-in's state.
func (rp *RP) stateCookieName() string {
	if rp.cfg.SecureCookies {
		return "__Host-taskwire-oidc"
	}
	return "taskwire-oidc"
}

// stateCookie is the state cookie with value, living maxAge seconds (-1
// deletes it). SameSite=Lax lets it come back on the provider's
// top-level redirect to the callback, and on nothing cross-site else.
func (rp *RP) stateCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: rp.stateCookieName(), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: rp.cfg.SecureCookies, SameSite: http.SameSiteLaxMode}
}
