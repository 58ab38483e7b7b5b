package console

import (
	"errors"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
)

// Signing in with a company's OpenID provider: the sign-in page offers a
// button per configured provider; the front door runs the code flow
// (oidcsignin) and hands who signed in to the workers, which find the
// person's account (by the provider's subject, or an invited, verified
// email) or refuse. The flow's state cookie, bound to this browser,
// keeps another site from finishing a sign-in in it (login CSRF).

// newOIDC is the relying party of cfg's providers, nil when there are
// none; its state cookie follows the console's cookie rule.
func newOIDC(cfg Config, ck cookies) (*oidcsignin.RP, error) {
	if len(cfg.OIDCProviders) == 0 {
		return nil, nil
	}
	if cfg.OIDCStates == nil {
		return nil, errors.New("console: Config.OIDCStates is required with OIDC providers")
	}
	return oidcsignin.New(oidcsignin.Config{Providers: cfg.OIDCProviders, PublicURL: cfg.PublicURL, States: cfg.OIDCStates,
		SecureCookies: ck.secure, Logger: cfg.Logger})
}

// providers are the sign-in page's buttons.
func (c *Console) providers() []oidcsignin.ProviderInfo {
	if c.oidc == nil {
		return nil
	}
	return c.oidc.Providers()
}

// oidcStart sends the browser to the provider.
func (c *Console) oidcStart(w http.ResponseWriter, r *http.Request) {
	if c.oidc == nil {
		c.notFound(w, r)
		return
	}
	if err := c.oidc.Start(w, r, r.PathValue("provider"), safeNext(r.URL.Query().Get("next"))); err != nil {
		c.oidcFailed(w, r, err)
	}
}

// oidcCallback finishes the flow and signs the person in.
func (c *Console) oidcCallback(w http.ResponseWriter, r *http.Request) {
	if c.oidc == nil {
		c.notFound(w, r)
		return
	}
	addr := c.cfg.Throttle.ClientAddr(r)
	if _, refused := c.cfg.Throttle.Refuses(addr); refused {
		c.showSignin(w, r, http.StatusTooManyRequests, "Too many failed sign-ins from your address. Try again in a minute.", signinData{})
		return
	}
	id, next, err := c.oidc.Finish(w, r, r.PathValue("provider"))
	if err != nil {
		c.cfg.Throttle.Failed(addr)
		c.oidcFailed(w, r, err)
		return
	}
	req := &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Oidc{Oidc: &taskwirev1.OIDCSignIn{
		Provider: id.Provider, Issuer: id.Issuer, Subject: id.Subject, Email: id.Email, EmailVerified: id.EmailVerified, Name: id.Name,
	}}, UserAgent: shorten(r.UserAgent(), 200)}
	if addr.IsValid() {
		req.ClientAddr = addr.String()
	}
	resp, err := c.sessions.SignIn(r.Context(), req)
	if code := status.Code(err); code == codes.Unauthenticated || code == codes.InvalidArgument {
		c.cfg.Throttle.Failed(addr)
		c.showSignin(w, r, http.StatusUnauthorized, status.Convert(err).Message(), signinData{})
		return
	}
	if err != nil {
		c.rpcFailed(w, r, nil, err)
		return
	}
	c.cookies.setSession(w, resp.GetCookie())
	if next == "" {
		next = "/"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// oidcFailed shows the sign-in page with the flow's sentence.
func (c *Console) oidcFailed(w http.ResponseWriter, r *http.Request, err error) {
	var e *oidcsignin.Error
	if !errors.As(err, &e) {
		c.log.ErrorContext(r.Context(), "console: OpenID sign-in failed", "err", err)
		e = &oidcsignin.Error{Message: "Signing in failed: start again."}
	}
	c.showSignin(w, r, http.StatusBadRequest, e.Message, signinData{})
}
