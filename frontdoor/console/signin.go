package console

import (
	"fmt"
	"math"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
)

// Sign-in is protected against login CSRF (another site signing a
// browser in to the attacker's account) twice: Go's cross-origin
// protection refuses the POST when the browser says it came from
// elsewhere, and the form carries a token bound to a pre-session cookie
// that only this site's pages set, for browsers that say nothing.

// signinData is what the sign-in pages show.
type signinData struct {
	Email     string
	Next      string
	Link      string // the link's secret, on the link page
	Providers []oidcsignin.ProviderInfo
	Passkeys  bool // offer to sign in with a passkey
}

// signinForm shows the email and password form.
func (c *Console) signinForm(w http.ResponseWriter, r *http.Request) {
	c.showSignin(w, r, http.StatusOK, "", signinData{Next: safeNext(r.URL.Query().Get("next"))})
}

func (c *Console) showSignin(w http.ResponseWriter, r *http.Request, code int, msg string, d signinData) {
	pre := c.cookies.preSession(w, r)
	d.Providers, d.Passkeys = c.providers(), c.passkeysOn
	c.render(w, r, code, "signin", page{Title: "Sign in", Message: msg, CSRF: c.csrf.token(csrfPreSession, pre), Data: d})
}

// signinPassword signs in with an email and a password.
func (c *Console) signinPassword(w http.ResponseWriter, r *http.Request) {
	d := signinData{Email: r.PostFormValue("email"), Next: safeNext(r.PostFormValue("next"))}
	req := &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Password{Password: &taskwirev1.PasswordSignIn{
		Email: d.Email, Password: r.PostFormValue("password"),
	}}}
	resp, ok := c.signIn(w, r, req, func(code int, msg string) { c.showSignin(w, r, code, msg, d) })
	if !ok {
		return
	}
	c.cookies.setSession(w, resp.GetCookie())
	target := d.Next
	if target == "" {
		target = "/"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// linkForm shows the page of a one-time sign-in link. It does not use
// the link: mail scanners fetch links, and would use it up.
func (c *Console) linkForm(w http.ResponseWriter, r *http.Request) {
	c.showLink(w, r, http.StatusOK, "", r.URL.Query().Get("k"))
}

func (c *Console) showLink(w http.ResponseWriter, r *http.Request, code int, msg, k string) {
	pre := c.cookies.preSession(w, r)
	w.Header().Set("Referrer-Policy", "no-referrer") // the secret is in this page's URL
	c.render(w, r, code, "signin_link", page{Title: "Sign in", Message: msg, CSRF: c.csrf.token(csrfPreSession, pre), Data: signinData{Link: k}})
}

// signinLink uses up a one-time link; a person without a password is
// sent to set one, so they can come back.
func (c *Console) signinLink(w http.ResponseWriter, r *http.Request) {
	k := r.PostFormValue("k")
	req := &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Link{Link: k}}
	resp, ok := c.signIn(w, r, req, func(code int, msg string) { c.showLink(w, r, code, msg, k) })
	if !ok {
		return
	}
	c.cookies.setSession(w, resp.GetCookie())
	target := "/"
	if !resp.GetAccount().GetHasPassword() {
		target = "/account"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// signIn checks the throttle and the form's CSRF token, then asks the
// workers to sign in. A refusal is shown by again(code, message); an
// address that failed too often is told when to come back.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request, req *taskwirev1.SignInRequest, again func(int, string)) (*taskwirev1.SignInResponse, bool) {
	addr := c.cfg.Throttle.ClientAddr(r)
	if wait, refused := c.cfg.Throttle.Refuses(addr); refused {
		secs := int(math.Ceil(wait.Seconds()))
		w.Header().Set("Retry-After", fmt.Sprint(secs))
		again(http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-ins from your address (%s allowed). Try again in %d seconds.", c.cfg.Throttle.Allowance(), secs))
		return nil, false
	}
	if pre, err := r.Cookie(c.cookies.pre); err != nil || !c.csrf.valid(csrfPreSession, pre.Value, r.PostFormValue("csrf")) {
		again(http.StatusForbidden, "This sign-in form had expired or came from another page. Send it again from this one.")
		return nil, false
	}
	if addr.IsValid() {
		req.ClientAddr = addr.String()
	}
	req.UserAgent = shorten(r.UserAgent(), 200)
	resp, err := c.sessions.SignIn(r.Context(), req)
	if status.Code(err) == codes.Unauthenticated || status.Code(err) == codes.InvalidArgument {
		c.cfg.Throttle.Failed(addr)
		again(http.StatusUnauthorized, status.Convert(err).Message())
		return nil, false
	}
	if err != nil {
		c.rpcFailed(w, r, nil, err)
		return nil, false
	}
	return resp, true
}

// safeNext returns next when it is a path of this site ("/t/acme/"),
// else "": a sign-in must never send the browser elsewhere.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, `\`+"\r\n\t") {
		return ""
	}
	return next
}

// shorten cuts s to at most n bytes, on a rune boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
