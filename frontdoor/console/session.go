package console

import (
	"context"
	"net/http"
	"net/url"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// visit is one signed-in request: the person's live session, and, on a
// tenant's pages, the membership it acts as.
type visit struct {
	cookie  string
	session *taskwirev1.CheckSessionResponse
	member  *taskwirev1.Membership // nil outside /t/<tenant>/
	csrf    string                 // the token every form of the page carries
}

// ctx is r's context with the caller every board and decision RPC is
// made as: the member, with every scope, named by the session (the
// worker checks it against the session's record on each call).
func (v *visit) ctx(r *http.Request) context.Context {
	return identity.AppendToOutgoing(r.Context(), identity.Caller{
		Tenant:  v.member.Tenant,
		Member:  int(v.member.MemberId),
		Scopes:  []string{"read", "comment", "write"},
		TokenID: v.session.GetSession().GetId(),
		Kind:    identity.KindSession,
	})
}

// tenant is the slug of the tenant the page is in.
func (v *visit) tenant() string { return v.member.GetTenant() }

// The templates' view of a visit.

// Member is the membership the page acts as; nil outside a tenant.
func (v *visit) Member() *taskwirev1.Membership { return v.member }

// CSRF is the token every form of the page carries.
func (v *visit) CSRF() string { return v.csrf }

// Account is the signed-in person's account.
func (v *visit) Account() *taskwirev1.Account { return v.session.GetAccount() }

// Memberships are the person's tenants, for the header.
func (v *visit) Memberships() []*taskwirev1.Membership { return v.session.GetMemberships() }

type visitHandler func(http.ResponseWriter, *http.Request, *visit)

// signedIn runs next for a request with a live session; anyone else is
// sent to sign in, and back here after. A POST must carry the session's
// CSRF token.
func (c *Console) signedIn(next visitHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok := c.loadVisit(w, r)
		if !ok {
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !c.csrf.valid(csrfSession, sessionID(v.cookie), r.PostFormValue("csrf")) {
			c.fail(w, r, v, http.StatusForbidden, "This form had expired or did not come from this page, so nothing was changed. Reload the page and try again.")
			return
		}
		next(w, r, v)
	}
}

// member runs next as the session's member of the tenant in the URL; a
// person who is no member of it is told so.
func (c *Console) member(next visitHandler) http.HandlerFunc {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *visit) {
		slug := r.PathValue("tenant")
		for _, m := range v.session.GetMemberships() {
			if m.GetTenant() == slug {
				v.member = m
				next(w, r, v)
				return
			}
		}
		c.fail(w, r, v, http.StatusNotFound, "You are not a member of a tenant named "+slug+". Pick one of yours from the header.")
	})
}

// loadVisit checks r's session cookie with the workers. Without a live
// session the browser is sent to /signin (its cookie deleted if it had
// one) and ok is false.
func (c *Console) loadVisit(w http.ResponseWriter, r *http.Request) (v *visit, ok bool) {
	cookie := c.cookies.sessionOf(r)
	if cookie == "" {
		c.toSignin(w, r)
		return nil, false
	}
	resp, err := c.sessions.CheckSession(r.Context(), &taskwirev1.CheckSessionRequest{Cookie: cookie})
	if status.Code(err) == codes.Unauthenticated {
		c.cookies.clearSession(w)
		c.toSignin(w, r)
		return nil, false
	}
	if err != nil {
		c.rpcFailed(w, r, nil, err)
		return nil, false
	}
	return &visit{cookie: cookie, session: resp, csrf: c.csrf.token(csrfSession, sessionID(cookie))}, true
}

// toSignin sends the browser to sign in, to come back to the page it
// asked for (a GET's; after a POST, the page it was on is unknown).
func (c *Console) toSignin(w http.ResponseWriter, r *http.Request) {
	target := "/signin"
	if r.Method == http.MethodGet && r.URL.Path != "/" {
		target += "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	if r.Header.Get("HX-Request") != "" {
		w.Header().Set("HX-Redirect", target) // htmx follows it with a full page load
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// home sends a signed-in person to their first tenant's board.
func (c *Console) home(w http.ResponseWriter, r *http.Request) {
	v, ok := c.loadVisit(w, r)
	if !ok {
		return
	}
	ms := v.session.GetMemberships()
	if len(ms) == 0 {
		http.Redirect(w, r, "/account", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, tenantPath(ms[0].GetTenant()), http.StatusSeeOther)
}

// tenantPath is the path of a tenant's default board.
func tenantPath(tenant string) string { return "/t/" + url.PathEscape(tenant) + "/" }
