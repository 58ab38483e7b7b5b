package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
)

// oidcFlag declares --oidc-providers, on the commands that serve the
// console.
func (c *config) oidcFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.OIDCFile, "oidc-providers", env("TASKWIRE_OIDC_PROVIDERS", ""),
		"JSON file naming the OpenID Connect providers people may sign in to the console with: name, title, issuer, client_id, client_secret_file or client_secret_env, domains (env TASKWIRE_OIDC_PROVIDERS; default: none, local accounts and sign-in links only)")
}

// loadOIDC reads the providers of --oidc-providers.
func (c *config) loadOIDC() (err error) {
	c.oidc, err = loadOIDCProviders(c.OIDCFile)
	return err
}

// oidcFile is the file --oidc-providers names: the OpenID providers
// people may sign in to the console with. Client secrets are never in it,
// only where to read them: a file, or an environment variable.
type oidcFile struct {
	Providers []oidcProvider `json:"providers"`
}

type oidcProvider struct {
	Name             string   `json:"name"`
	Title            string   `json:"title"`
	Issuer           string   `json:"issuer"`
	ClientID         string   `json:"client_id"`
	ClientSecretFile string   `json:"client_secret_file"`
	ClientSecretEnv  string   `json:"client_secret_env"`
	Domains          []string `json:"domains"`
}

// loadOIDCProviders reads the providers of the file at path; empty path:
// none. Unknown fields are refused, so a typo does not silently drop a
// setting.
func loadOIDCProviders(path string) ([]oidcsignin.ProviderConfig, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--oidc-providers: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f oidcFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("--oidc-providers %s: %v (see docs/configuration.md for the file's format)", path, err)
	}
	var out []oidcsignin.ProviderConfig
	for _, p := range f.Providers {
		secret, err := p.secret()
		if err != nil {
			return nil, fmt.Errorf("--oidc-providers %s: %w", path, err)
		}
		out = append(out, oidcsignin.ProviderConfig{Name: p.Name, Title: p.Title, Issuer: p.Issuer,
			ClientID: p.ClientID, ClientSecret: secret, Domains: p.Domains})
	}
	return out, nil
}

// secret reads p's client secret from its file or variable.
func (p oidcProvider) secret() (string, error) {
	switch {
	case p.ClientSecretFile != "" && p.ClientSecretEnv != "":
		return "", fmt.Errorf("provider %s: give client_secret_file or client_secret_env, not both", p.Name)
	case p.ClientSecretFile != "":
		raw, err := os.ReadFile(p.ClientSecretFile)
		if err != nil {
			return "", fmt.Errorf("provider %s: client secret: %w", p.Name, err)
		}
		return strings.TrimSpace(string(raw)), nil
	case p.ClientSecretEnv != "":
		v, ok := os.LookupEnv(p.ClientSecretEnv)
		if !ok || v == "" {
			return "", fmt.Errorf("provider %s: the environment variable %s holding its client secret is not set", p.Name, p.ClientSecretEnv)
		}
		return v, nil
	}
	return "", nil // a public client: PKCE without a secret
}
