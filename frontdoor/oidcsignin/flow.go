package oidcsignin

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// statePurpose keeps the state cookie apart from anything else sealed
// with the same keys.
const statePurpose = "taskwire/console oidc-state v1"

// stateTTL bounds how long a person may take at the provider.
const stateTTL = 10 * time.Minute

// flowState travels, sealed, in a cookie from Start to Finish.
type flowState struct {
	Provider string `json:"p"`
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"next,omitempty"`
	Expires  int64  `json:"exp"`
}

// Start sends the browser to provider name to sign in, remembering in a
// cookie where to go afterwards (next, a path of this site).
func (rp *RP) Start(w http.ResponseWriter, r *http.Request, name, next string) error {
	p, ok := rp.providers[name]
	if !ok {
		return &Error{Message: fmt.Sprintf("There is no sign-in provider %q here: choose one on the sign-in page.", name)}
	}
	op, _, err := rp.discover(r.Context(), p)
	if err != nil {
		return err
	}
	st := flowState{Provider: name, State: rand.Text(), Nonce: rand.Text(), Verifier: oauth2.GenerateVerifier(),
		Next: next, Expires: rp.cfg.Now().Add(stateTTL).Unix()}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	http.SetCookie(w, rp.stateCookie(rp.cfg.States.Seal(statePurpose, raw), int(stateTTL/time.Second)))
	url := rp.oauth2Config(p, op).AuthCodeURL(st.State, oidc.Nonce(st.Nonce), oauth2.S256ChallengeOption(st.Verifier))
	http.Redirect(w, r, url, http.StatusSeeOther)
	return nil
}

// Finish completes the sign-in at provider name's callback: it checks
// the state, exchanges the code with the PKCE verifier, verifies the ID
// token (issuer, audience, expiry, nonce) and the provider's email
// domains, and returns who signed in and where they were going.
func (rp *RP) Finish(w http.ResponseWriter, r *http.Request, name string) (Identity, string, error) {
	p, ok := rp.providers[name]
	if !ok {
		return Identity{}, "", &Error{Message: fmt.Sprintf("There is no sign-in provider %q here: choose one on the sign-in page.", name)}
	}
	st, err := rp.readState(w, r, name)
	if err != nil {
		return Identity{}, "", err
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return Identity{}, "", &Error{Message: fmt.Sprintf("%s did not sign you in (%s): try again, or sign in another way.", rp.title(p), e)}
	}
	op, verifier, err := rp.discover(r.Context(), p)
	if err != nil {
		return Identity{}, "", err
	}
	ctx := oidc.ClientContext(r.Context(), rp.cfg.HTTPClient)
	tok, err := rp.oauth2Config(p, op).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(st.Verifier))
	if err != nil {
		rp.cfg.Logger.WarnContext(ctx, "oidc: code exchange failed", "provider", name, "err", err)
		return Identity{}, "", rp.retry(p)
	}
	id, err := rp.verify(ctx, p, op, verifier, tok, st.Nonce)
	if err != nil {
		return Identity{}, "", err
	}
	return id, st.Next, nil
}

// readState opens the state cookie and checks it against the callback's
// state parameter; the cookie is cleared either way: each works once.
func (rp *RP) readState(w http.ResponseWriter, r *http.Request, name string) (flowState, error) {
	http.SetCookie(w, rp.stateCookie("", -1))
	var st flowState
	c, err := r.Cookie(rp.stateCookieName())
	if err == nil {
		var raw []byte
		if raw, err = rp.cfg.States.Open(statePurpose, c.Value); err == nil {
			err = json.Unmarshal(raw, &st)
		}
	}
	switch {
	case err != nil || st.Provider != name || st.State == "" || st.State != r.URL.Query().Get("state"):
		return st, &Error{Message: "This sign-in did not start here, or was started in another browser: start again from the sign-in page."}
	case rp.cfg.Now().Unix() > st.Expires:
		return st, &Error{Message: "This sign-in took longer than 10 minutes: start again from the sign-in page."}
	}
	return st, nil
}

func (rp *RP) verify(ctx context.Context, p *provider, op *oidc.Provider, verifier *oidc.IDTokenVerifier, tok *oauth2.Token, nonce string) (Identity, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, rp.retry(p)
	}
	idt, err := verifier.Verify(ctx, raw)
	if err != nil || idt.Nonce != nonce {
		rp.cfg.Logger.WarnContext(ctx, "security: oidc: an ID token was refused", "provider", p.cfg.Name, "err", err, "nonce_matched", err == nil && idt.Nonce == nonce)
		return Identity{}, rp.retry(p)
	}
	claims, err := rp.claims(ctx, p, op, idt, tok)
	if err != nil {
		return Identity{}, err
	}
	id := Identity{Provider: p.cfg.Name, Issuer: idt.Issuer, Subject: idt.Subject, Email: strings.ToLower(claims.Email),
		EmailVerified: claims.EmailVerified != nil && *claims.EmailVerified, Name: claims.Name}
	if !p.allowed(id) {
		return Identity{}, &Error{Message: fmt.Sprintf("Your account at %s (%s) is not one this console accepts: sign in with an account of %s.",
			rp.title(p), id.Email, strings.Join(p.cfg.Domains, " or "))}
	}
	return id, nil
}

func (rp *RP) retry(p *provider) error {
	return &Error{Message: fmt.Sprintf("Signing in with %s failed: start again from the sign-in page.", rp.title(p))}
}

// personClaims are the claims of a person the console reads.
type personClaims struct {
	Email         string `json:"email"`
	EmailVerified *bool  `json:"email_verified"`
	Name          string `json:"name"`
}

// claims reads idt's claims; providers may leave the email out of the ID
// token and give it at the userinfo endpoint, for the same subject.
func (rp *RP) claims(ctx context.Context, p *provider, op *oidc.Provider, idt *oidc.IDToken, tok *oauth2.Token) (personClaims, error) {
	var c personClaims
	if err := idt.Claims(&c); err != nil {
		return c, rp.retry(p)
	}
	if c.Email != "" {
		return c, nil
	}
	info, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil || info.Subject != idt.Subject {
		rp.cfg.Logger.WarnContext(ctx, "oidc: userinfo failed", "provider", p.cfg.Name, "err", err)
		return c, rp.retry(p)
	}
	if err := info.Claims(&c); err != nil {
		return c, rp.retry(p)
	}
	if c.EmailVerified == nil {
		c.EmailVerified = &info.EmailVerified
	}
	return c, nil
}
