package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOIDCProvidersFile: providers come from the file with their
// secrets read from a file or a variable, never from the file itself.
func TestOIDCProvidersFile(t *testing.T) {
	dir := t.TempDir()
	secret := writeFile(t, dir, "corp.secret", "s3cret\n")
	t.Setenv("TASKWIRE_TEST_GOOGLE_SECRET", "g-secret")
	path := writeFile(t, dir, "oidc.json", `{"providers": [
		{"name": "corp", "title": "Corp SSO", "issuer": "https://id.corp.example", "client_id": "console", "client_secret_file": "`+secret+`", "domains": ["corp.example"]},
		{"name": "google", "issuer": "https://accounts.google.com", "client_id": "g", "client_secret_env": "TASKWIRE_TEST_GOOGLE_SECRET"}]}`)
	got, err := loadOIDCProviders(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ClientSecret != "s3cret" || got[0].Domains[0] != "corp.example" || got[1].ClientSecret != "g-secret" {
		t.Errorf("loadOIDCProviders = %+v, want corp with its file's secret and google with its variable's", got)
	}
}

// TestOIDCProvidersFileRefusals: a typo, an inline secret, a secret
// named twice or a missing variable are refused, saying which.
func TestOIDCProvidersFileRefusals(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"inline secret": {`{"providers": [{"name": "corp", "client_secret": "x"}]}`, `unknown field "client_secret"`},
		"both":          {`{"providers": [{"name": "corp", "client_secret_file": "a", "client_secret_env": "B"}]}`, "not both"},
		"unset env":     {`{"providers": [{"name": "corp", "client_secret_env": "TASKWIRE_TEST_UNSET_SECRET"}]}`, "TASKWIRE_TEST_UNSET_SECRET"},
		"missing file":  {`{"providers": [{"name": "corp", "client_secret_file": "/nonexistent/secret"}]}`, "client secret"},
	} {
		_, err := loadOIDCProviders(writeFile(t, dir, "oidc.json", tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: loadOIDCProviders = %v, want an error saying %q", name, err, tc.want)
		}
	}
}
