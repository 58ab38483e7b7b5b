package oauthedge

import (
	"mime"
	"net/http"
	"net/url"

	"github.com/taskwire/taskwire/internal/caller/identity"
)

// maxFormBytes bounds a token or revocation request's body: a few
// parameters, the longest a refresh token or a client_id URL.
const maxFormBytes = 16 << 10

// clientAuth is how a client authenticated at the token or revocation
// endpoint (RFC 6749 §2.3.1).
type clientAuth struct {
	id, secret string
	method     string // "none", "client_secret_post" or "client_secret_basic"
}

// basic reports whether the client used HTTP Basic authentication.
func (a clientAuth) basic() bool { return a.method == "client_secret_basic" }

// readForm parses r's urlencoded body into r.PostForm, refusing any
// other body and a parameter sent twice (RFC 6749 §3.2). On failure the
// sentence says what to send instead.
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, string) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		return nil, "Send the parameters as application/x-www-form-urlencoded."
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return nil, "The request's body is not a form of at most 16 KB."
	}
	for k, vs := range r.PostForm {
		if len(vs) > 1 {
			return nil, "Send the parameter " + k + " once."
		}
	}
	return r.PostForm, ""
}

// authOf reads the client's credentials from the Authorization header
// (Basic, with id and secret form-urlencoded first) or from the form;
// using both is refused.
func authOf(r *http.Request, form url.Values) (clientAuth, string) {
	a := clientAuth{id: form.Get("client_id"), secret: form.Get("client_secret"), method: "none"}
	if a.secret != "" {
		a.method = "client_secret_post"
	}
	if r.Header.Get("Authorization") == "" {
		return a, ""
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		return a, "Authenticate the client with HTTP Basic, or send client_id (and client_secret) in the form."
	}
	id, err1 := url.QueryUnescape(user)
	secret, err2 := url.QueryUnescape(pass)
	if err1 != nil || err2 != nil {
		return a, "Form-urlencode the client_id and client_secret before Basic authentication (RFC 6749 section 2.3.1)."
	}
	if a.secret != "" || (a.id != "" && a.id != id) {
		return a, "Authenticate the client one way: HTTP Basic or the form, not both."
	}
	return clientAuth{id: id, secret: secret, method: "client_secret_basic"}, ""
}

// addressCaller is the subject of a client address's rate-limit bucket:
// the limiter keys its first level by TokenID.
func addressCaller(addr string) identity.Caller { return identity.Caller{TokenID: "addr:" + addr} }
