package oauth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// The bounds of fetching a Client ID Metadata Document.
const (
	fetchTimeout = 5 * time.Second
	maxDocument  = 5 << 10 // bytes
)

// errNotPublic is why the fetcher refuses to connect to an address.
var errNotPublic = errors.New("the address is not a public one")

// newFetcher returns the HTTP client that fetches metadata documents: a
// client_id is a URL anyone may send, so the fetcher connects only to
// public addresses, checked after DNS resolution on the address actually
// dialled (no DNS rebinding), follows no redirect, and gives up after
// fetchTimeout. loopback (tests only) also allows loopback addresses,
// and trusts any certificate.
func newFetcher(loopback bool) *http.Client {
	dialer := &net.Dialer{
		Timeout: fetchTimeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", errNotPublic, address)
			}
			if !publicAddr(ap.Addr(), loopback) {
				return fmt.Errorf("%w: %s", errNotPublic, ap.Addr())
			}
			return nil
		},
	}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		Proxy:                 nil, // a proxy would dial for us, unchecked
		TLSHandshakeTimeout:   fetchTimeout,
		ResponseHeaderTimeout: fetchTimeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		DisableCompression:    true,
	}
	if loopback {
		// Tests serve their documents over TLS with a certificate of
		// their own (httptest's), as clients that insist on an https
		// client_id need: loopback mode is for tests only.
		transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       fetchTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// nonPublic are the ranges publicAddr refuses besides those netip
// classifies: shared (CGNAT), benchmarking, documentation, reserved and
// NAT64 addresses, which reach no public server or reach inside.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
}

// publicAddr reports whether a is an address on the public internet:
// not loopback (unless loopback), private (RFC 1918, ULA), link-local,
// unspecified, multicast or one of nonPublic.
func publicAddr(a netip.Addr, loopback bool) bool {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return false
	case a.IsLoopback():
		return loopback
	case a.IsPrivate(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast(),
		a.IsMulticast(), a.IsUnspecified():
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// fetch GETs the document at url: its body (at most maxDocument bytes)
// and headers, or why it could not be had, in a sentence for the person
// or client.
func (s *Service) fetch(ctx context.Context, url string) ([]byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	resp, err := s.fetcher.Do(req)
	if errors.Is(err, errNotPublic) {
		return nil, nil, fmt.Errorf("its host is not on a public address, and this server fetches client documents only from public ones")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("it could not be fetched (%v)", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode != http.StatusOK:
		return nil, nil, fmt.Errorf("fetching it answered HTTP %d, not 200 (redirects are not followed)", resp.StatusCode)
	case !jsonType(resp.Header.Get("Content-Type")):
		return nil, nil, fmt.Errorf("it is served as %q, not application/json", printable(resp.Header.Get("Content-Type")))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("reading it failed (%v)", err)
	case len(body) > maxDocument:
		return nil, nil, fmt.Errorf("it is larger than %d KB", maxDocument>>10)
	}
	return body, resp.Header, nil
}

// jsonType reports whether a Content-Type is JSON.
func jsonType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
