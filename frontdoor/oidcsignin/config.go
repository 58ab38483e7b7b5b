// Package oidcsignin signs people in to the console with the OpenID
// Connect providers a company already has: the authorization code flow
// with PKCE (S256), a state and a nonce, through github.com/coreos/go-oidc
// and golang.org/x/oauth2. It only proves who the person is at the
// provider (issuer, subject, verified email); which account and members
// that person is, the workers decide (SessionService.SignIn).
package oidcsignin

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/taskwire/taskwire/frontdoor/sealed"
)

// ProviderConfig is one OpenID provider people may sign in with.
type ProviderConfig struct {
	// Name is the provider's slug in the console's URLs
	// (/signin/oidc/<name>), e.g. "google" or "okta".
	Name string
	// Title is what the sign-in button says after "Sign in with".
	Title string
	// Issuer is the provider's issuer URL; its discovery document is
	// read from <issuer>/.well-known/openid-configuration.
	Issuer       string
	ClientID     string
	ClientSecret string
	// Domains, when set, are the only email domains accepted from this
	// provider, and the email must be verified; empty accepts any.
	Domains []string
}

// Config configures an RP.
type Config struct {
	Providers []ProviderConfig
	// PublicURL is the deployment's URL; the callback of provider p is
	// <PublicURL>/signin/oidc/<p>/callback, which must be registered at
	// the provider.
	PublicURL string
	// States seals the short-lived cookie that carries a sign-in's state,
	// nonce and PKCE verifier from the redirect to the callback.
	States *sealed.Box
	// SecureCookies marks the state cookie Secure and names it with the
	// __Host- prefix: the console's rule for its own cookies, which
	// depends on its public URL.
	SecureCookies bool
	// HTTPClient reaches the providers; nil means http.DefaultClient.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// Validate reports what is wrong with cfg, naming the provider.
func (cfg Config) Validate() error {
	if cfg.States == nil || cfg.Logger == nil {
		return errors.New("oidcsignin: States and Logger are required")
	}
	if u, err := url.Parse(cfg.PublicURL); err != nil || u.Host == "" {
		return fmt.Errorf("oidcsignin: public URL %q is not an absolute URL", cfg.PublicURL)
	}
	seen := map[string]bool{}
	for _, p := range cfg.Providers {
		if err := p.validate(); err != nil {
			return err
		}
		if seen[p.Name] {
			return fmt.Errorf("OIDC provider %q is configured twice: give each provider its own name", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

func (p ProviderConfig) validate() error {
	if !nameRE.MatchString(p.Name) {
		return fmt.Errorf("OIDC provider name %q: use 1 to 40 lowercase letters, digits or dashes, starting with a letter", p.Name)
	}
	u, err := url.Parse(p.Issuer)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && !loopback(u.Hostname())):
		return fmt.Errorf("OIDC provider %s: issuer %q must be an https URL (plain http only on loopback, for tests)", p.Name, p.Issuer)
	case p.ClientID == "":
		return fmt.Errorf("OIDC provider %s: no client id: register the console at the provider and give its client id", p.Name)
	}
	for _, d := range p.Domains {
		if d == "" || strings.ContainsAny(d, "@ /") {
			return fmt.Errorf("OIDC provider %s: %q is not an email domain (like example.com)", p.Name, d)
		}
	}
	return nil
}

func loopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}
