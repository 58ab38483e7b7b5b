package console

import (
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// TestTenantSwitcher: a person in one tenant sees its name in the
// header; a person in several gets a menu named after the tenant they
// are in, listing every tenant of theirs with that one marked current.
func TestTenantSwitcher(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	one := e.do("GET", "/t/acme/", nil, session).Body.String()
	if strings.Contains(one, `class="switcher"`) || !strings.Contains(one, `<a href="/t/acme/" aria-current="true">Acme &amp; Co</a>`) {
		t.Errorf("the header of a person in one tenant has a switcher, or no current link to it:\n%s", one)
	}

	e.worker.mu.Lock()
	e.worker.others = []*taskwirev1.Membership{{Tenant: "globex", TenantName: "Globex", MemberId: 9, Handle: "ada"}}
	e.worker.mu.Unlock()
	page := e.do("GET", "/t/acme/", nil, session).Body.String()
	for _, want := range []string{
		`<summary>Acme &amp; Co <span class="hint">(switch tenant)</span></summary>`,
		`<li><a href="/t/acme/" aria-current="true">Acme &amp; Co</a></li>`,
		`<li><a href="/t/globex/">Globex</a></li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the header of a person in two tenants lacks %s:\n%s", want, page)
		}
	}
	if account := e.do("GET", "/account", nil, session).Body.String(); !strings.Contains(account, "<summary>Tenants <span") || strings.Contains(account, `aria-current="true"`) {
		t.Errorf("outside a tenant the switcher is not named Tenants, or marks one current:\n%s", account)
	}
}
