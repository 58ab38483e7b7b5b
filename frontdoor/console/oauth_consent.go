package console

import (
	"net/url"
	"regexp"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// consentData is what the consent page shows.
type consentData struct {
	ClientName, ClientID, ClientURI string
	// Known says how Taskwire knows the client, as a sentence.
	Known string
	// Logo is the client's https logo, or "".
	Logo         string
	RedirectHost string
	LocalOnly    bool
	Scopes       []string // in words
	Tenants      []consentTenant
	Toolsets     string
	// Fields are the request's parameters, for the form's hidden inputs.
	Fields []field
}

type consentTenant struct {
	Tenant, Name, Role, Handle string
	Before                     bool
}

type field struct{ Name, Value string }

// scopeWords say what each scope lets an assistant do.
var scopeWords = map[string]string{
	"read":    "read the boards, tasks, comments and history",
	"comment": "comment on tasks",
	"write":   "create, change, move and close tasks",
}

func (c *Console) consentData(query url.Values, con *taskwirev1.Consent) consentData {
	d := consentData{ClientName: con.GetClientName(), ClientID: con.GetClientId(), ClientURI: httpsOnly(con.GetClientUri()),
		Known: knownBy(con), Logo: httpsOnly(con.GetLogoUri()), RedirectHost: con.GetRedirectHost(),
		LocalOnly: con.GetLocalOnly(), Toolsets: "all tools"}
	if d.ClientName == "" {
		d.ClientName = con.GetClientId()
	}
	for _, s := range con.GetScopes() {
		if w, ok := scopeWords[s]; ok {
			d.Scopes = append(d.Scopes, w)
		}
	}
	for _, t := range con.GetTenants() {
		d.Tenants = append(d.Tenants, consentTenant{Tenant: t.GetTenant(), Name: t.GetTenantName(),
			Role:   strings.ToLower(strings.TrimPrefix(t.GetAssistantRole().String(), "MEMBER_ROLE_")),
			Handle: t.GetAssistantHandle(), Before: t.GetGrantedBefore()})
	}
	if ts := con.GetToolsets(); len(ts) > 0 {
		d.Toolsets = "the " + strings.Join(ts, ", ") + " tools"
	}
	for _, f := range authorizeFields {
		if query.Has(f) {
			d.Fields = append(d.Fields, field{f, query.Get(f)})
		}
	}
	return d
}

// knownBy says how Taskwire knows the client.
func knownBy(con *taskwirev1.Consent) string {
	switch con.GetClientKind() {
	case "metadata":
		host := con.GetClientId()
		if u, err := url.Parse(host); err == nil {
			host = u.Host
		}
		return "verified by its metadata document at " + host
	case "configured":
		return "configured by the operator of this Taskwire"
	default:
		return "a client that registered itself with no one vouching for it: its name is what it says it is"
	}
}

// httpsOnly is s when it is an https URL, else "": a page served over
// https shows nothing fetched in clear, and no other scheme is a link.
func httpsOnly(s string) string {
	if u, err := url.Parse(s); err != nil || u.Scheme != "https" || u.Host == "" {
		return ""
	}
	return s
}

// cspSource matches what may stand in a CSP source expression: a URL's
// scheme and host, never a quote, space, comma or semicolon.
var cspSource = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:(//[A-Za-z0-9.\-\[\]:]+)?$`)

// consentCSP is the console's policy with two holes the consent page
// needs: its form may end at the client's redirect URI (browsers apply
// form-action to the POST's redirect), and it may show the client's
// logo.
func consentCSP(redirectURI, logo string) string {
	csp := CSP
	if src := sourceOf(redirectURI); src != "" {
		csp = strings.Replace(csp, "form-action 'self'", "form-action 'self' "+src, 1)
	}
	if src := sourceOf(httpsOnly(logo)); src != "" {
		csp = strings.Replace(csp, "img-src 'self' data:", "img-src 'self' data: "+src, 1)
	}
	return csp
}

// sourceOf is the CSP source of a URL: its origin (scheme, host and
// port), or for a custom scheme (a native app's redirect) the scheme;
// "" if it cannot be written safely.
func sourceOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "javascript", "data", "blob", "file", "filesystem", "vbscript":
		return "" // never a client's redirect; the workers refuse them too
	}
	src := scheme + ":"
	if (scheme == "http" || scheme == "https") && u.Host != "" {
		src += "//" + u.Host
	} else if scheme == "http" || scheme == "https" {
		return ""
	}
	if !cspSource.MatchString(src) {
		return ""
	}
	return src
}
