package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/oauthclient"
	"github.com/taskwire/taskwire/internal/safetext"
)

// The bounds of caching a metadata document, whatever its headers say:
// often enough to see a changed document within a day, rarely enough
// that an authorization does not fetch it each time.
const (
	minDocumentCache     = 5 * time.Minute
	maxDocumentCache     = 24 * time.Hour
	defaultDocumentCache = time.Hour
)

// clientMetadata is the client metadata of RFC 7591 §2, as a
// registration or a Client ID Metadata Document carries it.
type clientMetadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// isMetadataURL reports whether a client_id means to name a metadata
// document: a URL (checkMetadataURL then refuses all but https ones, and
// http ones to loopback when tests open the guard).
func isMetadataURL(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// checkMetadataURL refuses a client_id URL no document may be fetched
// from: one with no path, a fragment, credentials, dot segments, or plain
// http to anything but this machine (and that in tests only).
func (s *Service) checkMetadataURL(id string) error {
	u, err := url.Parse(id)
	bad := func(why string) error {
		return refuse(errInvalidClient, "The client_id %q cannot name a metadata document: %s.", printable(id), why)
	}
	switch {
	case err != nil || u.Host == "":
		return bad("it is not a URL")
	case u.Scheme == "http" && !(s.clients.MetadataLoopback && loopbackHost(u.Hostname())):
		return bad("it is not https")
	case u.Path == "" || u.Path == "/":
		return bad("it has no path")
	case u.Fragment != "" || strings.Contains(id, "#"):
		return bad("it has a fragment")
	case u.User != nil:
		return bad("it carries a user name or password")
	case slices.ContainsFunc(strings.Split(u.Path, "/"), func(seg string) bool { return seg == "." || seg == ".." }):
		return bad("its path has . or .. segments")
	}
	return nil
}

// metadataClient returns the client whose metadata document is at id:
// the cached copy while it is fresh, else the document fetched again and
// cached until its cache headers say (bounded).
func (s *Service) metadataClient(ctx context.Context, id string) (*oauthClient, error) {
	if err := s.checkMetadataURL(id); err != nil {
		return nil, err
	}
	ctx = system(ctx)
	row, err := s.client.OAuthClient.Query().Where(oauthclient.ClientID(id)).Only(ctx)
	switch {
	case err == nil && row.Kind != oauthclient.KindMetadata:
		return nil, refuse(errInvalidClient, "The client_id %q is taken by another kind of client: use another.", printable(id))
	case err == nil && row.ExpiresAt != nil && s.now().Before(*row.ExpiresAt):
		return clientOfRow(row), nil
	case err != nil && !ent.IsNotFound(err):
		return nil, err
	}
	body, header, err := s.fetch(ctx, id)
	if err != nil {
		s.log.InfoContext(ctx, "oauth: a client metadata document was refused", "client_id", id, "why", err.Error())
		return nil, refuse(errInvalidClient, "The client's metadata document at %s cannot be used: %s.", printable(id), err)
	}
	md, err := parseDocument(id, body)
	if err != nil {
		s.log.InfoContext(ctx, "oauth: a client metadata document was refused", "client_id", id, "why", err.Error())
		return nil, refuse(errInvalidClient, "The client's metadata document at %s cannot be used: %s.", printable(id), err)
	}
	return s.cacheDocument(ctx, row, md, string(body), s.now().Add(cacheLifetime(header, s.now())))
}

// parseDocument checks a Client ID Metadata Document fetched from id.
func parseDocument(id string, body []byte) (clientMetadata, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return clientMetadata{}, fmt.Errorf("it is not a JSON object")
	}
	for k := range fields {
		if strings.HasPrefix(k, "client_secret") {
			return clientMetadata{}, fmt.Errorf("it carries %s, and a public document must hold no secret", k)
		}
	}
	var md clientMetadata
	if err := json.Unmarshal(body, &md); err != nil {
		return clientMetadata{}, fmt.Errorf("a field has the wrong type (%v)", err)
	}
	switch md.TokenEndpointAuthMethod {
	case "", authNone:
	case "private_key_jwt":
		return clientMetadata{}, fmt.Errorf("it asks for private_key_jwt authentication, which this server does not support: publish token_endpoint_auth_method none")
	default:
		return clientMetadata{}, fmt.Errorf("token_endpoint_auth_method %q is not possible for a public document: use none", printable(md.TokenEndpointAuthMethod))
	}
	if md.ClientID != id {
		return clientMetadata{}, fmt.Errorf("its client_id %q is not its own URL, as it must be exactly", printable(md.ClientID))
	}
	md.TokenEndpointAuthMethod = authNone
	return md, md.check()
}

// check refuses metadata a client cannot work with, saying why.
func (md *clientMetadata) check() error {
	if len(md.RedirectURIs) == 0 {
		return fmt.Errorf("it names no redirect_uris: name at least one")
	}
	if md.ApplicationType == "" {
		md.ApplicationType = guessAppType(md.RedirectURIs)
	}
	if md.ApplicationType != appWeb && md.ApplicationType != appNative {
		return fmt.Errorf("application_type %q is not web or native", printable(md.ApplicationType))
	}
	for _, u := range md.RedirectURIs {
		if err := checkRedirectURI(u, md.ApplicationType); err != nil {
			return err
		}
	}
	for _, g := range md.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return fmt.Errorf("grant type %q is not supported: use authorization_code and refresh_token", printable(g))
		}
	}
	for _, r := range md.ResponseTypes {
		if r != "code" {
			return fmt.Errorf("response type %q is not supported: use code", printable(r))
		}
	}
	md.ClientName = clientName(md.ClientName, md.RedirectURIs[0])
	md.LogoURI, md.ClientURI = httpsOnly(md.LogoURI), httpsOnly(md.ClientURI)
	return nil
}

// guessAppType is the application_type of a client that sent none: web,
// as OpenID Connect says, unless it has a custom-scheme redirect, which
// only a native application can receive (Cursor registers one without
// saying native).
func guessAppType(uris []string) string {
	for _, raw := range uris {
		if u, err := url.Parse(raw); err == nil && u.Scheme != "http" && u.Scheme != "https" {
			return appNative
		}
	}
	return appWeb
}

// clientName is name fit for the consent page: on one line, with no
// characters that hide or reorder text, at most 100 characters; the
// redirect host when there is none.
func clientName(name, redirect string) string {
	name, err := safetext.Line("client_name", name)
	if err != nil || name == "" {
		name = redirectHost(redirect)
	}
	if utf8.RuneCountInString(name) > 100 {
		name = string([]rune(name)[:100])
	}
	return name
}

// cacheLifetime is how long a document fetched now may be cached: its
// Cache-Control max-age, else its Expires, else defaultDocumentCache,
// bounded by minDocumentCache and maxDocumentCache.
func cacheLifetime(h http.Header, now time.Time) time.Duration {
	d := defaultDocumentCache
	if age, ok := maxAge(h.Get("Cache-Control")); ok {
		d = age
	} else if exp, err := http.ParseTime(h.Get("Expires")); err == nil {
		d = exp.Sub(now)
	}
	return min(max(d, minDocumentCache), maxDocumentCache)
}

// maxAge is the max-age of a Cache-Control header, if it has one.
func maxAge(cc string) (time.Duration, bool) {
	for _, dir := range strings.Split(cc, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(dir), "=")
		if strings.EqualFold(k, "max-age") {
			n, err := strconv.Atoi(strings.Trim(v, `"`))
			return time.Duration(n) * time.Second, err == nil
		}
	}
	return 0, false
}

// cacheDocument writes md into row (a new row when nil) until expires.
// Two replicas fetching at once both write; the later write wins.
func (s *Service) cacheDocument(ctx context.Context, row *ent.OAuthClient, md clientMetadata, doc string, expires time.Time) (*oauthClient, error) {
	if row == nil {
		var err error
		row, err = s.client.OAuthClient.Create().SetClientID(md.ClientID).SetKind(oauthclient.KindMetadata).
			SetName(md.ClientName).SetLogoURI(md.LogoURI).SetClientURI(md.ClientURI).SetRedirectUris(md.RedirectURIs).
			SetApplicationType(md.ApplicationType).SetTokenEndpointAuthMethod(authNone).SetDocument(doc).
			SetCreatedAt(s.now()).SetExpiresAt(expires).Save(ctx)
		if !ent.IsConstraintError(err) {
			if err != nil {
				return nil, err
			}
			return clientOfRow(row), nil
		}
		// Another replica cached it meanwhile: update its row.
		if row, err = s.client.OAuthClient.Query().Where(oauthclient.ClientID(md.ClientID)).Only(ctx); err != nil {
			return nil, err
		}
	}
	row, err := row.Update().SetName(md.ClientName).SetLogoURI(md.LogoURI).SetClientURI(md.ClientURI).
		SetRedirectUris(md.RedirectURIs).SetApplicationType(md.ApplicationType).SetDocument(doc).
		SetExpiresAt(expires).Save(ctx)
	if err != nil {
		return nil, err
	}
	return clientOfRow(row), nil
}
