package console

import (
	"net/http"
	"net/url"
)

// routes is the console's table of pages (the console contract's routes),
// behind its security headers and the cross-origin check of every
// request that changes something.
func (c *Console) routes() (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", assetHandler()))
	mux.HandleFunc("GET /{$}", c.home)
	mux.HandleFunc("GET /signin", c.signinForm)
	mux.HandleFunc("POST /signin", c.signinPassword)
	mux.HandleFunc("GET /signin/link", c.linkForm)
	mux.HandleFunc("POST /signin/link", c.signinLink)
	mux.HandleFunc("POST /signin/passkey/options", c.passkeySignInOptions)
	mux.HandleFunc("POST /signin/passkey", c.signinPasskey)
	mux.HandleFunc("GET /signin/oidc/{provider}", c.oidcStart)
	mux.HandleFunc("GET /signin/oidc/{provider}/callback", c.oidcCallback)
	mux.HandleFunc("POST /signout", c.signedIn(c.signout))
	mux.HandleFunc("GET /account", c.signedIn(c.account))
	mux.HandleFunc("POST /account", c.signedIn(c.setPassword))
	mux.HandleFunc("POST /account/passkeys/options", c.signedIn(c.passkeyOptions))
	mux.HandleFunc("POST /account/passkeys", c.signedIn(c.addPasskey))
	mux.HandleFunc("POST /account/passkeys/{id}/remove", c.signedIn(c.removePasskey))
	mux.HandleFunc("GET /t/{tenant}/{$}", c.member(c.boardPage))
	mux.HandleFunc("GET /t/{tenant}/b/{board}/{$}", c.member(c.boardPage))
	mux.HandleFunc("GET /t/{tenant}/tasks/{ref}", c.member(c.taskPage))
	mux.HandleFunc("POST /t/{tenant}/tasks/{ref}", c.member(c.editTask))
	mux.HandleFunc("POST /t/{tenant}/tasks/{ref}/move", c.member(c.moveTask))
	mux.HandleFunc("POST /t/{tenant}/tasks/{ref}/comments", c.member(c.addComment))
	mux.HandleFunc("POST /t/{tenant}/tasks/{ref}/comments/{id}", c.member(c.editComment))
	mux.HandleFunc("POST /t/{tenant}/tasks/{ref}/work", c.member(c.approveWork))
	mux.HandleFunc("GET /t/{tenant}/events", c.member(c.liveEvents))
	mux.HandleFunc("GET /t/{tenant}/decisions", c.member(c.decisionsPage))
	mux.HandleFunc("GET /t/{tenant}/decisions/{id}", c.member(c.decisionPage))
	mux.HandleFunc("POST /t/{tenant}/decisions/{id}", c.member(c.decide))
	mux.HandleFunc("GET /t/{tenant}/boards", c.member(c.boardsPage))
	mux.HandleFunc("POST /t/{tenant}/boards", c.member(c.createBoard))
	mux.HandleFunc("GET /t/{tenant}/b/{board}/settings", c.member(c.settingsPage))
	mux.HandleFunc("POST /t/{tenant}/b/{board}/settings", c.member(c.saveSettings))
	mux.HandleFunc("POST /t/{tenant}/b/{board}/notes", c.member(c.addNote))
	mux.HandleFunc("POST /t/{tenant}/b/{board}/archive", c.member(c.archiveBoard))
	mux.HandleFunc("GET /t/{tenant}/audit", c.member(c.auditPage))
	mux.HandleFunc("GET /t/{tenant}/members", c.member(c.membersPage))
	mux.HandleFunc("POST /t/{tenant}/export", c.member(c.exportTenant))
	mux.HandleFunc("POST /t/{tenant}/members/invite", c.member(c.invitePerson))
	mux.HandleFunc("POST /t/{tenant}/members/assistants", c.member(c.addAssistant))
	mux.HandleFunc("POST /t/{tenant}/members/{handle}/role", c.member(c.setRole))
	mux.HandleFunc("POST /t/{tenant}/members/{handle}/remove", c.member(c.removeMember))
	mux.HandleFunc("GET /t/{tenant}/connect", c.member(c.connectPage))
	mux.HandleFunc("GET /t/{tenant}/tokens", c.member(c.tokensPage))
	mux.HandleFunc("POST /t/{tenant}/tokens", c.member(c.createToken))
	mux.HandleFunc("POST /t/{tenant}/tokens/{id}/revoke", c.member(c.revokeToken))
	mux.HandleFunc("POST /t/{tenant}/grants/{id}/revoke", c.member(c.revokeGrant))
	mux.HandleFunc("GET /oauth/authorize", c.signedIn(c.authorizePage))
	mux.HandleFunc("POST /oauth/authorize", c.signedIn(c.authorizeDecision))
	mux.HandleFunc("GET /operator/tenants", c.operator(c.operatorTenants))
	mux.HandleFunc("POST /operator/tenants", c.operator(c.createTenant))
	mux.HandleFunc("GET /operator/keys", c.operator(c.operatorKeys))
	mux.HandleFunc("GET /operator/keys/rotate", c.operator(c.confirmRotate))
	mux.HandleFunc("POST /operator/keys/rotate", c.operator(c.rotateKey))
	mux.HandleFunc("/", c.notFound)

	// Go's cross-origin protection refuses a non-GET request a browser
	// says came from another site (Sec-Fetch-Site, else Origin against
	// Host); the public URL's origin is allowed too, for a front door
	// behind a proxy that rewrites Host.
	cop := http.NewCrossOriginProtection()
	if u, err := url.Parse(c.cfg.PublicURL); err == nil {
		if err := cop.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			return nil, err
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(c.crossOrigin))
	return secureHeaders(cop.Handler(mux)), nil
}

// crossOrigin answers a change a browser sent from another site.
func (c *Console) crossOrigin(w http.ResponseWriter, r *http.Request) {
	c.fail(w, r, nil, http.StatusForbidden, "This form was sent from another site, so it was refused. Reload the page and send it again from here.")
}

// notFound answers any path the console does not have.
func (c *Console) notFound(w http.ResponseWriter, r *http.Request) {
	c.fail(w, r, nil, http.StatusNotFound, "There is no such page. Go back to the board and follow a link from there.")
}
