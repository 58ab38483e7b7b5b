package oidcsignin

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// RP is the console's relying party for its configured providers.
type RP struct {
	cfg       Config
	providers map[string]*provider
}

// provider is one configured provider, discovered on first use so that a
// provider that is down does not stop the front door from starting.
type provider struct {
	cfg ProviderConfig

	mu       sync.Mutex
	oidc     *oidc.Provider
	verifier *oidc.IDTokenVerifier
}

// Identity is who the provider says signed in.
type Identity struct {
	Provider      string // the provider's configured name
	Issuer        string
	Subject       string
	Email         string // lowercased
	EmailVerified bool
	Name          string
}

// ProviderInfo is what the sign-in page shows of a provider.
type ProviderInfo struct{ Name, Title string }

// New returns an RP for cfg.
func New(cfg Config) (*RP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	rp := &RP{cfg: cfg, providers: map[string]*provider{}}
	for _, p := range cfg.Providers {
		rp.providers[p.Name] = &provider{cfg: p}
	}
	return rp, nil
}

// Providers lists the providers in configured order.
func (rp *RP) Providers() []ProviderInfo {
	var out []ProviderInfo
	for _, p := range rp.cfg.Providers {
		title := p.Title
		if title == "" {
			title = p.Name
		}
		out = append(out, ProviderInfo{Name: p.Name, Title: title})
	}
	return out
}

// discover returns p's provider and ID token verifier, reading the
// discovery document the first time it succeeds.
func (rp *RP) discover(ctx context.Context, p *provider) (*oidc.Provider, *oidc.IDTokenVerifier, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.oidc != nil {
		return p.oidc, p.verifier, nil
	}
	op, err := oidc.NewProvider(oidc.ClientContext(ctx, rp.cfg.HTTPClient), p.cfg.Issuer)
	if err != nil {
		rp.cfg.Logger.WarnContext(ctx, "oidc: cannot read the provider's discovery document", "provider", p.cfg.Name, "issuer", p.cfg.Issuer, "err", err)
		return nil, nil, &Error{Message: fmt.Sprintf("%s cannot be reached just now; try again in a moment, or sign in another way.", rp.title(p))}
	}
	p.oidc = op
	p.verifier = op.Verifier(&oidc.Config{ClientID: p.cfg.ClientID, Now: rp.cfg.Now})
	return p.oidc, p.verifier, nil
}

// oauth2Config is the code flow's configuration for p.
func (rp *RP) oauth2Config(p *provider, op *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     p.cfg.ClientID,
		ClientSecret: p.cfg.ClientSecret,
		Endpoint:     op.Endpoint(),
		RedirectURL:  rp.CallbackURL(p.cfg.Name),
		Scopes:       []string{oidc.ScopeOpenID, "email", "profile"},
	}
}

// CallbackURL is the redirect URI to register at provider name.
func (rp *RP) CallbackURL(name string) string {
	return strings.TrimSuffix(rp.cfg.PublicURL, "/") + "/signin/oidc/" + name + "/callback"
}

func (rp *RP) title(p *provider) string {
	if p.cfg.Title != "" {
		return p.cfg.Title
	}
	return p.cfg.Name
}

// allowed reports whether p accepts id's email.
func (p *provider) allowed(id Identity) bool {
	if len(p.cfg.Domains) == 0 {
		return true
	}
	at := strings.LastIndexByte(id.Email, '@')
	return id.EmailVerified && at > 0 && slices.Contains(p.cfg.Domains, strings.ToLower(id.Email[at+1:]))
}

// Error is a sign-in that failed, with a sentence for the person.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }
