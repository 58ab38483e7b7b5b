package authn

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ErrInvalidToken is wrapped by every error Verify returns. Those errors'
// messages say why a token was refused in words safe to show the client
// (for example in WWW-Authenticate's error_description): they never
// contain the token, nor anything of a tenant but what the token itself
// says.
var ErrInvalidToken = errors.New("invalid token")

// Reason is why a token was refused, for callers whose answer depends on
// it (the admin API tells how to get an admin credential).
type Reason int

// The reasons of a refusal.
const (
	ReasonMalformed   Reason = iota + 1 // not a JWT, or too long
	ReasonUnknownKey                    // signed by a key not (or no longer) served
	ReasonSignature                     // bad signature or algorithm
	ReasonOtherServer                   // issued for another public URL
	ReasonOtherKind                     // an MCP token where an admin token is needed, or the reverse
	ReasonExpired                       // past its exp
	ReasonNotYetValid                   // before its nbf or iat
	ReasonLifetime                      // lives longer than the maximum token lifetime
	ReasonClaims                        // a claim missing or malformed
	ReasonRevoked                       // revoked
)

// TokenError is a refusal of a token: why, in a sentence safe to show.
type TokenError struct {
	Reason  Reason
	Message string
}

func (e *TokenError) Error() string { return e.Message }
func (e *TokenError) Unwrap() error { return ErrInvalidToken }

// ReasonOf returns why err refused a token; 0 when it is no TokenError.
func ReasonOf(err error) Reason {
	var te *TokenError
	if errors.As(err, &te) {
		return te.Reason
	}
	return 0
}

func refuse(r Reason, format string, args ...any) error {
	return &TokenError{Reason: r, Message: fmt.Sprintf(format, args...)}
}

// refusal turns a parser error into the refusal to show. The order
// matters: a token may fail several checks, and the first match is told.
// c holds what could be parsed of the token's claims; the claims are
// checked only once the signature verified, so what they name was signed
// by a key of this deployment.
func (v *Verifier) refusal(err error, c *claims) error {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return refuse(ReasonMalformed, "the token is malformed (not a JWT): send the whole token, as it was shown")
	case errors.Is(err, errUnknownKey):
		return refuse(ReasonUnknownKey, "the token was signed with a key this server does not know, or no longer accepts (a retired key whose tokens have expired): ask for a new token")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return refuse(ReasonSignature, "the token's signature is invalid, or its algorithm is not allowed")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return v.otherAudience(c.Audience)
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return refuse(ReasonOtherServer, "the token was issued by another server, %s, not by %s", printable(c.Issuer), v.issuer)
	case errors.Is(err, jwt.ErrTokenExpired) && c.ExpiresAt != nil:
		return refuse(ReasonExpired, "the token expired at %s: ask for a new one", c.ExpiresAt.UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return refuse(ReasonNotYetValid, "the token is not valid yet (it was issued in the future): check the clocks of this server and of the one that issued it")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return refuse(ReasonClaims, "the token lacks a required claim (exp, aud or iss)")
	}
	return refuse(ReasonClaims, "the token is invalid")
}

// Suffixes of the audiences of this deployment's two kinds of token.
const (
	mcpSuffix   = "/api/mcp"
	adminSuffix = "/admin"
)

// otherAudience is the refusal of a token signed by a key of this
// deployment but meant for another audience: the other kind of token of
// this server, or a token issued for another public URL (this server was
// restarted on another address, or is reached by another name).
func (v *Verifier) otherAudience(aud jwt.ClaimStrings) error {
	if len(aud) != 1 {
		return refuse(ReasonClaims, "the token names %d audiences, want 1", len(aud))
	}
	base, kind := aud[0], ""
	if b, ok := strings.CutSuffix(aud[0], mcpSuffix); ok {
		base, kind = b, "mcp"
	} else if b, ok := strings.CutSuffix(aud[0], adminSuffix); ok {
		base, kind = b, "admin"
	}
	switch {
	case kind == "":
		return refuse(ReasonOtherServer, "the token was issued for another server (audience %s), not for %s", printable(aud[0]), v.audience)
	case base == v.issuer && kind == "admin":
		return refuse(ReasonOtherKind, "this is an admin token, for the admin API only: use an MCP token here")
	case base == v.issuer:
		return refuse(ReasonOtherKind, "this is an MCP token, which cannot administer")
	}
	base = printable(base)
	return refuse(ReasonOtherServer, "the token was issued for another server URL, %s, and this server is %s: use the token with %s, or start this server with --public-url %s",
		base, v.issuer, base, base)
}

// printable is s cut short and stripped of anything but printable ASCII,
// since a claim ends up in a header.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// FormatTTL writes a token lifetime as people set it: "2160h", "90m".
func FormatTTL(d time.Duration) string {
	switch {
	case d > 0 && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d > 0 && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}
