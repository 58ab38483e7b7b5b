package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// The operator pages: the deployment's tenants and signing keys, for
// people whose account is a platform operator's. They call the admin API
// as the person's session; the worker lets an operator's session act as
// the platform operator there (and only there), so the console decides
// nothing but whether to show the pages.

// operator runs next for a platform operator. Anyone else gets the page
// every missing path gets, so the pages' existence tells nothing.
func (c *Console) operator(next visitHandler) http.HandlerFunc {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, v *visit) {
		if !v.Account().GetOperator() || len(v.Memberships()) == 0 {
			c.notFound(w, r)
			return
		}
		next(w, r, v)
	})
}

// operatorCtx is r's context with the caller the admin API is called as:
// the person's session, acting as their first membership (the worker
// needs a member to check the session against; the operator mark then
// reaches every tenant).
func (v *visit) operatorCtx(r *http.Request) context.Context {
	m := v.Memberships()[0]
	return identity.AppendToOutgoing(r.Context(), identity.Caller{
		Tenant: m.GetTenant(), Member: int(m.GetMemberId()),
		TokenID: v.session.GetSession().GetId(), Kind: identity.KindSession,
	})
}

// operatorFailed answers a refused admin call: a person whose operator
// flag was revoked meanwhile gets the missing page, as on their next
// visit; anything else as any page's failure.
func (c *Console) operatorFailed(w http.ResponseWriter, r *http.Request, v *visit, err error) {
	if status.Code(err) == codes.PermissionDenied {
		c.notFound(w, r)
		return
	}
	c.rpcFailed(w, r, v, err)
}

// tenantsView is what operator_tenants.html shows.
type tenantsView struct {
	Tenants  []*adminv1.Tenant
	Next     string // the next page's token, "" on the last
	Form     url.Values
	Created  *adminv1.CreateTenantResponse // the tenant just created, shown once
	LinkURL  string                        // its owner's sign-in link, shown once
	LinkTill time.Time
}

// operatorTenants lists the tenants, oldest first, a page at a time.
func (c *Console) operatorTenants(w http.ResponseWriter, r *http.Request, v *visit) {
	c.showTenants(w, r, v, http.StatusOK, "", tenantsView{})
}

func (c *Console) showTenants(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string, view tenantsView) {
	resp, err := c.admin.ListTenants(v.operatorCtx(r), &adminv1.ListTenantsRequest{PageToken: r.URL.Query().Get("page")})
	if err != nil {
		c.operatorFailed(w, r, v, err)
		return
	}
	view.Tenants, view.Next = resp.GetTenants(), resp.GetNextPageToken()
	c.render(w, r, code, "operator_tenants", page{Title: "Tenants", Visit: v, Message: msg, Data: view})
}

// createTenant creates a tenant with its first owner, and a sign-in
// link for that owner, both shown this once.
func (c *Console) createTenant(w http.ResponseWriter, r *http.Request, v *visit) {
	ctx := v.operatorCtx(r)
	form := r.PostForm
	resp, err := c.admin.CreateTenant(ctx, &adminv1.CreateTenantRequest{
		Slug: strings.TrimSpace(form.Get("slug")), Name: strings.TrimSpace(form.Get("name")),
		OwnerHandle: strings.TrimSpace(form.Get("owner")), OwnerName: strings.TrimSpace(form.Get("owner_name")),
	})
	switch status.Code(err) {
	case codes.OK:
	case codes.InvalidArgument, codes.FailedPrecondition, codes.AlreadyExists, codes.ResourceExhausted:
		c.showTenants(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), tenantsView{Form: form})
		return
	default:
		c.operatorFailed(w, r, v, err)
		return
	}
	view := tenantsView{Created: resp}
	msg := "Tenant " + resp.GetTenant().GetSlug() + " is created. Copy what is below now: it is not shown again."
	link, err := c.admin.CreateSignInLink(ctx, &adminv1.CreateSignInLinkRequest{Tenant: resp.GetTenant().GetSlug(), Handle: resp.GetOwner().GetHandle()})
	if err == nil {
		view.LinkURL, view.LinkTill = c.linkURL(link.GetSecret()), link.GetExpireTime().AsTime()
	} else {
		c.log.WarnContext(r.Context(), "console: no sign-in link for a new tenant's owner", "tenant", resp.GetTenant().GetSlug(), "err", err)
		msg += " No sign-in link could be made for the owner: make one with taskwire admin signin-link."
	}
	c.showTenants(w, r, v, http.StatusOK, msg, view)
}

// keyView is a signing key as operator_keys.html shows it.
type keyView struct {
	*adminv1.SigningKey
	State string // "signing", "retired" or "expired"
}

// operatorKeys lists the signing keys, newest first.
func (c *Console) operatorKeys(w http.ResponseWriter, r *http.Request, v *visit) {
	c.showKeys(w, r, v, "")
}

func (c *Console) showKeys(w http.ResponseWriter, r *http.Request, v *visit, msg string) {
	resp, err := c.admin.ListSigningKeys(v.operatorCtx(r), &adminv1.ListSigningKeysRequest{})
	if err != nil {
		c.operatorFailed(w, r, v, err)
		return
	}
	keys := make([]keyView, 0, len(resp.GetKeys()))
	for _, k := range resp.GetKeys() {
		keys = append(keys, keyView{SigningKey: k, State: keyState(k, time.Now())})
	}
	c.render(w, r, http.StatusOK, "operator_keys", page{Title: "Signing keys", Visit: v, Message: msg, Data: keys})
}

// keyState says whether k signs, still verifies, or verifies no more.
func keyState(k *adminv1.SigningKey, now time.Time) string {
	switch {
	case k.GetCurrent():
		return "signing"
	case k.GetVerifyUntil() != nil && !now.Before(k.GetVerifyUntil().AsTime()):
		return "expired"
	}
	return "retired"
}

// confirmRotate asks before rotating: every worker and front door
// switches keys at once.
func (c *Console) confirmRotate(w http.ResponseWriter, r *http.Request, v *visit) {
	c.render(w, r, http.StatusOK, "operator_rotate", page{Title: "Rotate the signing key", Visit: v})
}

// rotateKey rotates the signing key, then shows the keys.
func (c *Console) rotateKey(w http.ResponseWriter, r *http.Request, v *visit) {
	resp, err := c.admin.RotateSigningKey(v.operatorCtx(r), &adminv1.RotateSigningKeyRequest{})
	if err != nil {
		c.operatorFailed(w, r, v, err)
		return
	}
	msg := "New tokens are signed with key " + resp.GetCurrent().GetKid() + "."
	if p := resp.GetPrevious(); p != nil {
		msg += " Tokens signed with key " + p.GetKid() + " still verify until " + when(p.GetVerifyUntil()) + "."
	}
	c.showKeys(w, r, v, msg)
}
