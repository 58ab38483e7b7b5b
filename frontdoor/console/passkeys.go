package console

import (
	"crypto/rand"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/sealed"
)

// Passkeys: the workers run the WebAuthn ceremonies; the console carries
// them between the browser and the workers. A ceremony's state is kept in
// a cookie sealed for this browser (its session, or before sign-in its
// pre-session cookie), living as long as the ceremony may, so nothing the
// browser sends can change it and no other browser can finish it. The
// script (console.js) asks for the options, lets the authenticator answer
// and posts the answer; these answers are JSON, and failures a sentence
// of text it shows in #flash.

// stateTTL is how long the state cookie lives: as long as the workers
// accept the ceremony (sessions.PasskeyTTL; the front door links no
// worker package, which would bring the database with it).
const stateTTL = 5 * time.Minute

// The purposes of sealed ceremony states, bound to one browser.
const (
	sealSignIn   = "console passkey sign-in "
	sealRegister = "console passkey registration "
)

// passkeyBox is box, or one with a key of this process's.
func passkeyBox(box *sealed.Box) (*sealed.Box, error) {
	if box != nil {
		return box, nil
	}
	key := make([]byte, sealed.KeySize)
	rand.Read(key)
	return sealed.NewBox(key)
}

// passkeyHost reports whether publicURL names a host passkeys can belong
// to: a name, not an IP address. The workers decide the same from the
// same URL; the pages only leave out what cannot work.
func passkeyHost(publicURL string) bool {
	u, err := url.Parse(publicURL)
	return err == nil && u.Hostname() != "" && net.ParseIP(u.Hostname()) == nil
}

// passkeyCookie is the name of the ceremony's state cookie.
func (c cookies) passkeyCookie() string {
	if c.secure {
		return "__Host-taskwire-passkey"
	}
	return "taskwire-passkey"
}

// keepState seals a ceremony's state into its cookie, for stateTTL.
func (c *Console) keepState(w http.ResponseWriter, purpose string, state []byte) {
	http.SetCookie(w, c.cookies.cookie(c.cookies.passkeyCookie(), c.passkeys.Seal(purpose, state), int(stateTTL.Seconds())))
}

// takeState opens the ceremony's state and deletes its cookie: a state
// serves one answer. nil when there is none for purpose.
func (c *Console) takeState(w http.ResponseWriter, r *http.Request, purpose string) []byte {
	ck, err := r.Cookie(c.cookies.passkeyCookie())
	if err != nil {
		return nil
	}
	http.SetCookie(w, c.cookies.cookie(ck.Name, "", -1))
	state, err := c.passkeys.Open(purpose, ck.Value)
	if err != nil {
		return nil
	}
	return state
}

// noState is what a person hears when the ceremony's cookie is gone.
const noState = "This passkey request expired or was already used: try again."

// writeJSON answers the script with v.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

// writeOptions answers the script with the options a worker made.
func writeOptions(w http.ResponseWriter, options string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(options))
}

// scriptFailed answers the script with a worker's refusal as a sentence.
func (c *Console) scriptFailed(w http.ResponseWriter, r *http.Request, v *visit, err error) {
	code, msg := c.rpcMessage(r, v, err)
	plain(w, code, msg)
}

// passkeySignInOptions starts a passkey sign-in for the sign-in page.
func (c *Console) passkeySignInOptions(w http.ResponseWriter, r *http.Request) {
	pre, err := r.Cookie(c.cookies.pre)
	if err != nil || !c.csrf.valid(csrfPreSession, pre.Value, r.PostFormValue("csrf")) {
		plain(w, http.StatusForbidden, "This sign-in page had expired or came from another page: reload it and try again.")
		return
	}
	resp, err := c.sessions.BeginPasskeySignIn(r.Context(), &taskwirev1.BeginPasskeySignInRequest{})
	if err != nil {
		c.scriptFailed(w, r, nil, err)
		return
	}
	c.keepState(w, sealSignIn+pre.Value, resp.GetState())
	writeOptions(w, resp.GetOptionsJson())
}

// signinPasskey signs in with what the authenticator answered, counted
// by the throttle like a password.
func (c *Console) signinPasskey(w http.ResponseWriter, r *http.Request) {
	again := func(code int, msg string) { plain(w, code, msg) }
	var state []byte
	if pre, err := r.Cookie(c.cookies.pre); err == nil {
		state = c.takeState(w, r, sealSignIn+pre.Value)
	}
	if state == nil {
		again(http.StatusBadRequest, noState)
		return
	}
	req := &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Passkey{Passkey: &taskwirev1.PasskeySignIn{
		State: state, CredentialJson: r.PostFormValue("credential"),
	}}}
	resp, ok := c.signIn(w, r, req, again)
	if !ok {
		return
	}
	c.cookies.setSession(w, resp.GetCookie())
	target := safeNext(r.PostFormValue("next"))
	if target == "" {
		target = "/"
	}
	writeJSON(w, map[string]string{"location": target})
}

// passkeyOptions starts adding a passkey to the account.
func (c *Console) passkeyOptions(w http.ResponseWriter, r *http.Request, v *visit) {
	resp, err := c.sessions.BeginPasskeyRegistration(r.Context(), &taskwirev1.BeginPasskeyRegistrationRequest{Cookie: v.cookie})
	if err != nil {
		c.scriptFailed(w, r, v, err)
		return
	}
	c.keepState(w, sealRegister+sessionID(v.cookie), resp.GetState())
	writeOptions(w, resp.GetOptionsJson())
}

// addPasskey keeps the passkey the authenticator made. The form posted
// without the script carries no passkey: the page says what is needed.
func (c *Console) addPasskey(w http.ResponseWriter, r *http.Request, v *visit) {
	if r.PostFormValue("credential") == "" {
		c.showAccount(w, r, v, http.StatusBadRequest, "Adding a passkey needs JavaScript and a browser that supports passkeys: allow scripts for this site, or use another browser.")
		return
	}
	state := c.takeState(w, r, sealRegister+sessionID(v.cookie))
	if state == nil {
		plain(w, http.StatusBadRequest, noState)
		return
	}
	_, err := c.sessions.FinishPasskeyRegistration(r.Context(), &taskwirev1.FinishPasskeyRegistrationRequest{
		Cookie: v.cookie, State: state, CredentialJson: r.PostFormValue("credential"), Name: r.PostFormValue("name"),
	})
	if err != nil {
		c.scriptFailed(w, r, v, err)
		return
	}
	writeJSON(w, map[string]string{"location": "/account?passkey=added"})
}

// removePasskey removes one of the account's passkeys.
func (c *Console) removePasskey(w http.ResponseWriter, r *http.Request, v *visit) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	resp, err := c.sessions.DeletePasskey(r.Context(), &taskwirev1.DeletePasskeyRequest{Cookie: v.cookie, Id: id})
	switch status.Code(err) {
	case codes.OK:
		v.session.Account.Passkeys--
		c.showAccount(w, r, v, http.StatusOK, "The passkey “"+resp.GetPasskey().GetName()+"” is removed: it no longer signs you in.")
	case codes.NotFound, codes.FailedPrecondition:
		c.showAccount(w, r, v, http.StatusConflict, status.Convert(err).Message())
	default:
		c.rpcFailed(w, r, v, err)
	}
}
