package console

import (
	"net/http"
	"strings"

	"github.com/taskwire/taskwire/internal/clientconfig"
)

// connectData is what the Connect page shows: the MCP endpoint and each
// client's two ways in.
type connectData struct {
	Endpoint string
	// OAuth is each client's way of signing in: nothing secret, so the
	// page can show it to anyone of the tenant.
	OAuth []clientconfig.Snippet
	// Tokens are the token snippets with TokenPlaceholder where the token
	// goes; the Tokens page shows them filled in once one is minted.
	Tokens []clientconfig.Snippet
}

// TokenPlaceholder stands for a token in the Connect page's snippets: the
// page never mints one, so that opening it changes nothing.
const TokenPlaceholder = "YOUR-TOKEN"

// connectPage shows how an assistant connects: by signing in (OAuth),
// which every client but the stdio bridge can do and which needs no
// token to be copied, or with a token minted on the Tokens page.
func (c *Console) connectPage(w http.ResponseWriter, r *http.Request, v *visit) {
	endpoint := c.endpoint()
	data := connectData{Endpoint: endpoint, OAuth: clientconfig.OAuthFor(endpoint), Tokens: clientconfig.For(endpoint, TokenPlaceholder)}
	c.render(w, r, http.StatusOK, "connect", page{Title: "Connect an assistant", Visit: v, Data: data})
}

// endpoint is the MCP endpoint's URL, the resource tokens are bound to.
func (c *Console) endpoint() string {
	return strings.TrimRight(c.cfg.PublicURL, "/") + "/api/mcp"
}
