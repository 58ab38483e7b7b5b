// Package oidctest runs a real OpenID provider for tests: the
// example provider of github.com/zitadel/oidc, in process on loopback,
// with the people a test gives it and a login form of its own.
package oidctest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

// Person is someone who can sign in at the provider.
type Person struct {
	Username, Password string
	Email              string
	EmailVerified      bool
	GivenName, Family  string
}

// Provider is a running OpenID provider.
type Provider struct {
	Issuer       string
	ClientID     string
	ClientSecret string
}

// registerMu guards the example storage's package-level client registry.
var registerMu sync.Mutex

// Start runs a provider at a loopback address until the test ends, with
// one confidential web client whose redirect URIs are redirects.
func Start(t *testing.T, people []Person, redirects ...string) *Provider {
	t.Helper()
	var handler http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	p := &Provider{Issuer: srv.URL, ClientID: "taskwire-console-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), ClientSecret: "console-secret"}
	registerMu.Lock()
	storage.RegisterClients(storage.WebClient(p.ClientID, p.ClientSecret, redirects...))
	registerMu.Unlock()
	users := userStore{}
	for i, person := range people {
		id := "user-" + string(rune('a'+i))
		users[id] = &storage.User{ID: id, Username: person.Username, Password: person.Password,
			FirstName: person.GivenName, LastName: person.Family, Email: person.Email,
			EmailVerified: person.EmailVerified, PreferredLanguage: language.English}
	}
	handler = exampleop.SetupServer(p.Issuer, storage.NewStorage(users), nil, false)
	return p
}

// SignIn answers the provider's login form for person: from the form's
// URL (where the provider sent the browser), it returns where the
// provider sends the browser next (the console's callback).
func SignIn(t *testing.T, c *http.Client, loginPage *url.URL, person Person) *http.Response {
	t.Helper()
	form := url.Values{"id": {loginPage.Query().Get("authRequestID")}, "username": {person.Username}, "password": {person.Password}}
	resp, err := c.PostForm(loginPage.Scheme+"://"+loginPage.Host+"/login/username", form)
	if err != nil {
		t.Fatalf("provider login: %v", err)
	}
	return resp
}

// userStore is the provider's people, by id.
type userStore map[string]*storage.User

func (u userStore) GetUserByID(id string) *storage.User { return u[id] }

func (u userStore) GetUserByUsername(name string) *storage.User {
	for _, user := range u {
		if user.Username == name {
			return user
		}
	}
	return nil
}

func (u userStore) ExampleClientID() string { return "" }
