package console

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/clientconfig"
)

// tokensData is what the Tokens page shows.
type tokensData struct {
	Tokens []tokenView
	// For are the handles the person may mint for: themselves and the
	// assistants they sponsor; owners and admins, every member they may
	// act on.
	For      []string
	Me       string
	Scopes   []string
	Toolsets []string
	Expiries []expiry
	// Created is the token just minted: its only showing.
	Created *createdToken
	// Grants are the assistants connected by OAuth; GrantsError says
	// why they could not be listed.
	Grants      []grantView
	GrantsError string
}

// tokenView is a token's record as the page shows it.
type tokenView struct {
	ID, Label, Member, Scopes, Toolsets string
	Expires, LastUse, State             string
	Live                                bool
}

// expiry is one choice of a token's lifetime.
type expiry struct {
	Days     int
	Selected bool
}

// createdToken is a new token with the configuration of each client.
type createdToken struct {
	Token    string
	Info     tokenView
	Endpoint string
	Snippets []clientconfig.Snippet
}

// expiryDays are the lifetimes the form offers, within Config.MaxTokenTTL.
var expiryDays = []int{1, 7, 30, 90}

const defaultExpiryDays = 30

// tokensPage lists the tokens the person may see, and the form to mint one.
func (c *Console) tokensPage(w http.ResponseWriter, r *http.Request, v *visit) {
	msg := ""
	if r.URL.RawQuery == grantRevoked {
		msg = "The grant was revoked: the assistant can no longer act with it, on any front door."
	}
	c.showTokens(w, r, v, http.StatusOK, msg, nil)
}

func (c *Console) showTokens(w http.ResponseWriter, r *http.Request, v *visit, code int, msg string, created *createdToken) {
	ctx := v.ctx(r)
	list, err := c.allTokens(ctx)
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	members, err := c.allMembers(ctx)
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	data := tokensData{Me: v.member.GetHandle(), For: mintable(v, members), Scopes: authz.AllScopes,
		Toolsets: authz.AllToolsets, Expiries: c.expiries(), Created: created}
	for _, t := range slices.Backward(list) {
		data.Tokens = append(data.Tokens, viewToken(t))
	}
	data.Grants, data.GrantsError = c.grantsOf(r, v)
	c.render(w, r, code, "tokens", page{Title: "Tokens", Visit: v, Message: msg, Data: data})
}

// allTokens reads the tokens the person may see, oldest first.
func (c *Console) allTokens(ctx context.Context) ([]*adminv1.Token, error) {
	return readAll(func(next string) ([]*adminv1.Token, string, error) {
		resp, err := c.admin.ListTokens(ctx, &adminv1.ListTokensRequest{PageSize: 100, PageToken: next})
		return resp.GetTokens(), resp.GetNextPageToken(), err
	})
}

// mintable are the handles of members the person may mint tokens for,
// themselves first: the rule of the admin service (an owner: anyone; an
// admin: anyone but owners; anyone else: themselves and the assistants
// they sponsor), so the form offers only what will be allowed.
func mintable(v *visit, members []*adminv1.Member) []string {
	me := v.member.GetHandle()
	out := []string{me}
	for _, m := range members {
		h := m.GetHandle()
		var ok bool
		switch v.member.GetRole() {
		case taskwirev1.MemberRole_MEMBER_ROLE_OWNER:
			ok = true
		case taskwirev1.MemberRole_MEMBER_ROLE_ADMIN:
			ok = m.GetRole() != taskwirev1.MemberRole_MEMBER_ROLE_OWNER
		default:
			ok = m.GetSponsor() == me
		}
		if ok && h != me {
			out = append(out, h)
		}
	}
	return out
}

// expiries are the lifetimes offered, those within the maximum.
func (c *Console) expiries() []expiry {
	var out []expiry
	for _, d := range expiryDays {
		if max := c.cfg.MaxTokenTTL; max > 0 && time.Duration(d)*24*time.Hour > max {
			break
		}
		out = append(out, expiry{Days: d, Selected: d == defaultExpiryDays})
	}
	if n := len(out); n > 0 && out[n-1].Days < defaultExpiryDays {
		out[n-1].Selected = true // the longest allowed, short of the default
	}
	return out
}

func viewToken(t *adminv1.Token) tokenView {
	tv := tokenView{ID: t.GetId(), Label: t.GetLabel(), Member: t.GetMember(), Scopes: strings.Join(t.GetScopes(), ", "),
		Toolsets: strings.Join(t.GetToolsets(), ", "), Expires: when(t.GetExpireTime()), LastUse: when(t.GetLastUseTime()),
		State: enumName(t.GetState().String(), "TOKEN_STATE_"), Live: t.GetState() == adminv1.TokenState_TOKEN_STATE_LIVE}
	if t.GetAdmin() {
		tv.Scopes = "admin API"
	}
	if tv.Toolsets == "" {
		tv.Toolsets = "all"
	}
	if tv.LastUse == "" {
		tv.LastUse = "never"
	}
	return tv
}

// createToken mints an MCP token and shows it on this response only,
// with each client's configuration: it is never put into a URL, and the
// page is not stored (render sends no-store).
func (c *Console) createToken(w http.ResponseWriter, r *http.Request, v *visit) {
	days, err := strconv.Atoi(r.PostFormValue("days"))
	if err != nil || days < 1 {
		c.showTokens(w, r, v, http.StatusBadRequest, "Pick how long the token lives.", nil)
		return
	}
	resp, err := c.admin.CreateToken(v.ctx(r), &adminv1.CreateTokenRequest{
		Member:   r.PostFormValue("member"),
		Scopes:   r.PostForm["scope"],
		Toolsets: r.PostForm["toolset"],
		Ttl:      durationpb.New(time.Duration(days) * 24 * time.Hour),
		Label:    strings.TrimSpace(r.PostFormValue("label")),
	})
	if err != nil {
		c.refused(w, r, v, err, func(code int, msg string) { c.showTokens(w, r, v, code, msg, nil) })
		return
	}
	endpoint := strings.TrimRight(c.cfg.PublicURL, "/") + "/api/mcp"
	created := &createdToken{Token: resp.GetToken(), Info: viewToken(resp.GetInfo()), Endpoint: endpoint,
		Snippets: clientconfig.For(endpoint, resp.GetToken())}
	c.showTokens(w, r, v, http.StatusOK, "", created)
}

// revokeToken revokes one token, then lists the tokens again.
func (c *Console) revokeToken(w http.ResponseWriter, r *http.Request, v *visit) {
	_, err := c.admin.RevokeToken(v.ctx(r), &adminv1.RevokeTokenRequest{Id: r.PathValue("id")})
	if err != nil {
		c.refused(w, r, v, err, func(code int, msg string) { c.showTokens(w, r, v, code, msg, nil) })
		return
	}
	http.Redirect(w, r, fmt.Sprintf("%stokens", tenantPath(v.tenant())), http.StatusSeeOther)
}
