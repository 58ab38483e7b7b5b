package console

import (
	"net/http"
	"net/url"
	"testing"
)

// TestOperatorPagesHidden: to a person whose account is no operator's,
// the operator pages answer as any missing page does, posts included.
func TestOperatorPagesHidden(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	missing := e.do("GET", "/no/such/page", nil, session)
	for _, r := range []struct {
		method, path string
		form         url.Values
	}{
		{"GET", "/operator/tenants", nil},
		{"GET", "/operator/keys", nil},
		{"GET", "/operator/keys/rotate", nil},
		{"POST", "/operator/tenants", url.Values{"csrf": {csrf}, "slug": {"x"}, "owner": {"y"}}},
		{"POST", "/operator/keys/rotate", url.Values{"csrf": {csrf}}},
	} {
		got := e.do(r.method, r.path, r.form, session)
		if got.Code != http.StatusNotFound || got.Body.String() != missing.Body.String() {
			t.Errorf("%s %s = %d, want 404 with the missing page's words:\n%s", r.method, r.path, got.Code, got.Body)
		}
	}
}
