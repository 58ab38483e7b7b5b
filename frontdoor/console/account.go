package console

import (
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// account shows the person's email, the form to set a password, and the
// button that ends every session.
func (c *Console) account(w http.ResponseWriter, r *http.Request, v *visit) {
	c.showAccount(w, r, v, http.StatusOK, "")
}

// accountData is what the account page shows beside the visit.
type accountData struct {
	Passkeys   []*taskwirev1.Passkey
	PasskeysOn bool // passkeys can be added here
}

func (c *Console) showAccount(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string) {
	a := v.session.GetAccount()
	switch {
	case msg != "":
	case r.Method == http.MethodGet && r.URL.Query().Get("passkey") == "added":
		msg = "Your passkey is added: sign in with it from now on, no password needed."
	case !a.GetHasPassword() && a.GetPasskeys() == 0 && c.passkeysOn:
		msg = "Add a passkey or set a password below, so that you can sign in again once this session ends."
	case !a.GetHasPassword() && a.GetPasskeys() == 0:
		msg = "Set a password below, so that you can sign in again once this session ends."
	}
	d := accountData{PasskeysOn: c.passkeysOn}
	if a.GetPasskeys() > 0 {
		resp, err := c.sessions.ListPasskeys(r.Context(), &taskwirev1.ListPasskeysRequest{Cookie: v.cookie})
		if err != nil {
			c.rpcFailed(w, r, v, err)
			return
		}
		d.Passkeys = resp.GetPasskeys()
	}
	c.render(w, r, code, "account", page{Title: "Your account", Visit: v, Message: msg, Data: d})
}

// setPassword sets the account's email and password.
func (c *Console) setPassword(w http.ResponseWriter, r *http.Request, v *visit) {
	resp, err := c.sessions.SetPassword(r.Context(), &taskwirev1.SetPasswordRequest{
		Cookie:          v.cookie,
		Email:           r.PostFormValue("email"),
		CurrentPassword: r.PostFormValue("current_password"),
		NewPassword:     r.PostFormValue("new_password"),
	})
	switch status.Code(err) {
	case codes.OK:
		v.session.Account = resp.GetAccount()
		c.showAccount(w, r, v, http.StatusOK, "Your password is set. Sign in with "+resp.GetAccount().GetEmail()+" from now on.")
	case codes.InvalidArgument, codes.PermissionDenied, codes.Unauthenticated, codes.FailedPrecondition, codes.AlreadyExists:
		c.showAccount(w, r, v, http.StatusBadRequest, status.Convert(err).Message())
	default:
		c.rpcFailed(w, r, v, err)
	}
}

// signout ends this session, or with everywhere=1 every session of the
// account, and deletes the cookie.
func (c *Console) signout(w http.ResponseWriter, r *http.Request, v *visit) {
	_, err := c.sessions.SignOut(r.Context(), &taskwirev1.SignOutRequest{
		Cookie:     v.cookie,
		Everywhere: r.PostFormValue("everywhere") == "1",
		ClientAddr: clientAddr(c, r),
	})
	if err != nil && status.Code(err) != codes.Unauthenticated {
		c.rpcFailed(w, r, v, err)
		return
	}
	c.cookies.clearSession(w)
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

// clientAddr is r's client address as text, "" when unknown.
func clientAddr(c *Console, r *http.Request) string {
	if a := c.cfg.Throttle.ClientAddr(r); a.IsValid() {
		return a.String()
	}
	return ""
}
