package console

import (
	"net/http"
	"strconv"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// grantView is an OAuth grant as the Tokens page shows it: an assistant
// a person connected by signing in, rather than with a minted token.
type grantView struct {
	ID                                int64
	Client, Kind, Assistant, Person   string
	Scopes, Created, LastUse, Expires string
	Status, RedirectHost              string
	Live                              bool
}

// grantRevoked is the query of the Tokens page after a grant was revoked,
// which it says above the lists.
const grantRevoked = "grant=revoked"

// grantsOf lists the grants of the page's tenant the person may see:
// every one for owners and admins, else their own. The page is still
// useful without them, so a failure is said, not fatal.
func (c *Console) grantsOf(r *http.Request, v *visit) ([]grantView, string) {
	resp, err := c.oauth.ListGrants(r.Context(), &taskwirev1.ListGrantsRequest{Cookie: v.cookie, Tenant: v.tenant()})
	if err != nil {
		_, msg := c.rpcMessage(r, v, err)
		return nil, "The assistants signed in with OAuth cannot be listed now: " + msg
	}
	// The worker lists only the grants of the tenant asked for.
	out := make([]grantView, 0, len(resp.GetGrants()))
	for _, g := range resp.GetGrants() {
		out = append(out, viewGrant(g))
	}
	return out, ""
}

func viewGrant(g *taskwirev1.Grant) grantView {
	gv := grantView{ID: g.GetId(), Client: g.GetClientName(), Kind: g.GetClientKind(), Assistant: g.GetAssistantHandle(),
		Person: g.GetPersonHandle(), Scopes: strings.Join(g.GetScopes(), ", "), Created: when(g.GetCreateTime()),
		LastUse: when(g.GetLastUseTime()), Expires: when(g.GetExpireTime()), RedirectHost: g.GetRedirectHost(), Status: "live", Live: true}
	if gv.Client == "" {
		gv.Client = g.GetClientId()
	}
	if gv.LastUse == "" {
		gv.LastUse = "never"
	}
	if g.GetRevokeTime() != nil {
		gv.Status, gv.Live = "revoked", false
	}
	return gv
}

// revokeGrant revokes one grant: the assistant's refresh tokens stop
// working and its access tokens are refused on every front door.
func (c *Console) revokeGrant(w http.ResponseWriter, r *http.Request, v *visit) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		c.fail(w, r, v, http.StatusNotFound, "There is no such grant. Reload the Tokens page and pick one from it.")
		return
	}
	_, err = c.oauth.RevokeGrant(r.Context(), &taskwirev1.RevokeGrantRequest{Cookie: v.cookie, Id: id, ClientAddr: c.clientAddr(r)})
	if err != nil {
		c.refused(w, r, v, err, func(code int, msg string) { c.showTokens(w, r, v, code, msg, nil) })
		return
	}
	http.Redirect(w, r, tenantPath(v.tenant())+"tokens?"+grantRevoked, http.StatusSeeOther)
}
