package console

import (
	"net/http"
	"net/url"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// The authorization endpoint of Taskwire's OAuth server (the rest is
// frontdoor/oauthedge): a person signs in, sees what a client asks for,
// and approves or denies. The workers check every request twice, on the
// page and on approval, so the form's hidden fields are only echoed back.

// authorizeFields are the authorization request's parameters, which the
// consent form carries from the page to the POST.
var authorizeFields = []string{"response_type", "client_id", "redirect_uri", "scope", "state",
	"code_challenge", "code_challenge_method", "resource"}

// authorizationRequest reads the parameters of an authorization request
// from the URL's query (GET) or the consent form (POST).
func authorizationRequest(v url.Values) *taskwirev1.AuthorizationRequest {
	return &taskwirev1.AuthorizationRequest{
		ResponseType: v.Get("response_type"), ClientId: v.Get("client_id"), RedirectUri: v.Get("redirect_uri"),
		Scope: v.Get("scope"), State: v.Get("state"), CodeChallenge: v.Get("code_challenge"),
		CodeChallengeMethod: v.Get("code_challenge_method"), Resource: v.Get("resource"),
	}
}

// authorizePage shows the consent page of an authorization request, or
// its error: on the page when the client or its redirect URI cannot be
// trusted, else at the client's redirect URI.
func (c *Console) authorizePage(w http.ResponseWriter, r *http.Request, v *visit) {
	req := authorizationRequest(r.URL.Query())
	resp, err := c.oauth.CheckAuthorization(r.Context(), &taskwirev1.CheckAuthorizationRequest{Cookie: v.cookie, Request: req})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	if e := resp.GetError(); e != nil {
		c.authorizeFailed(w, r, v, e, resp.GetRedirect(), resp.GetRedirectUri(), req.GetState())
		return
	}
	data := c.consentData(r.URL.Query(), resp.GetConsent())
	w.Header().Set("Content-Security-Policy", consentCSP(resp.GetRedirectUri(), data.Logo))
	c.render(w, r, http.StatusOK, "oauth_consent", page{Title: "Connect " + data.ClientName, Visit: v, Data: data})
}

// authorizeDecision is the consent form's answer: deny sends the client
// access_denied, approve a code; both only after the workers check the
// request again, so the form's redirect URI is never trusted as sent.
func (c *Console) authorizeDecision(w http.ResponseWriter, r *http.Request, v *visit) {
	req := authorizationRequest(r.PostForm)
	if r.PostFormValue("decision") != "approve" {
		c.deny(w, r, v, req)
		return
	}
	resp, err := c.oauth.Approve(r.Context(), &taskwirev1.ApproveRequest{Cookie: v.cookie, Request: req,
		Tenant: r.PostFormValue("tenant"), ClientAddr: c.clientAddr(r)})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	if e := resp.GetError(); e != nil {
		c.authorizeFailed(w, r, v, e, resp.GetRedirect(), resp.GetRedirectUri(), req.GetState())
		return
	}
	http.Redirect(w, r, c.authorizationResponse(resp.GetRedirectUri(), url.Values{"code": {resp.GetCode()}}, req.GetState()), http.StatusSeeOther)
}

// deny tells the client the person declined, at the redirect URI the
// workers vouch for.
func (c *Console) deny(w http.ResponseWriter, r *http.Request, v *visit, req *taskwirev1.AuthorizationRequest) {
	resp, err := c.oauth.CheckAuthorization(r.Context(), &taskwirev1.CheckAuthorizationRequest{Cookie: v.cookie, Request: req})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	e := resp.GetError()
	if e == nil {
		e = &taskwirev1.OAuthError{Code: "access_denied", Description: "The person denied the request."}
	}
	c.authorizeFailed(w, r, v, e, resp.GetError() == nil || resp.GetRedirect(), resp.GetRedirectUri(), req.GetState())
}

// authorizeFailed sends an error to the client's redirect URI when it may
// (RFC 6749 §4.1.2.1), else shows it: an untrusted redirect URI must
// never be followed, or Taskwire would be an open redirector.
func (c *Console) authorizeFailed(w http.ResponseWriter, r *http.Request, v *visit, e *taskwirev1.OAuthError, redirect bool, redirectURI, state string) {
	if !redirect || redirectURI == "" {
		c.fail(w, r, v, http.StatusBadRequest, "This sign-in request of an assistant cannot be completed: "+e.GetDescription()+
			" Nothing was granted. Go back to the assistant's app and connect again; if this keeps happening, tell its makers.")
		return
	}
	q := url.Values{"error": {e.GetCode()}}
	if d := e.GetDescription(); d != "" {
		q.Set("error_description", d)
	}
	http.Redirect(w, r, c.authorizationResponse(redirectURI, q, state), http.StatusSeeOther)
}

// authorizationResponse is redirectURI with params, state and iss (RFC
// 9207) added to the query it already has.
func (c *Console) authorizationResponse(redirectURI string, params url.Values, state string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI // the workers checked it; never reached
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", strings.TrimSuffix(c.cfg.PublicURL, "/"))
	u.RawQuery = q.Encode()
	return u.String()
}

// clientAddr is the address r came from, "" when unknown.
func (c *Console) clientAddr(r *http.Request) string {
	if a := c.cfg.Throttle.ClientAddr(r); a.IsValid() {
		return a.String()
	}
	return ""
}
