package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// MinOperatorSecretLen is the shortest operator secret accepted, in bytes.
const MinOperatorSecretLen = 32

// OperatorSecret recognises the deployment's operator secret. It keeps
// only the secret's SHA-256 and compares in constant time, so neither a
// memory dump nor response timing gives the secret away.
type OperatorSecret struct {
	sum [sha256.Size]byte
}

// NewOperatorSecret returns the recogniser of secret, which must be at
// least MinOperatorSecretLen bytes.
func NewOperatorSecret(secret string) (*OperatorSecret, error) {
	if len(secret) < MinOperatorSecretLen {
		return nil, fmt.Errorf("admin: the operator secret has %d bytes, want at least %d", len(secret), MinOperatorSecretLen)
	}
	return &OperatorSecret{sum: sha256.Sum256([]byte(secret))}, nil
}

// Matches reports whether raw is the operator secret.
func (o *OperatorSecret) Matches(raw string) bool {
	if o == nil {
		return false
	}
	sum := sha256.Sum256([]byte(raw))
	return subtle.ConstantTimeCompare(sum[:], o.sum[:]) == 1
}

// principal is who calls the admin API: an operator, or a member.
type principal struct {
	operator bool
	caller   identity.Caller
}

// HowToGetCredential tells someone without an admin credential how to
// get one; the command-line client says it too.
const HowToGetCredential = "use the operator secret (the operator.secret file of the server's data directory, " +
	"or --operator-secret-file), or an admin token of an owner or admin: " +
	"taskwire token create --member HANDLE --admin on the server, or taskwire admin tokens create --member HANDLE --admin"

// authenticate returns the principal of the Authorization values of a
// request, or an Unauthenticated status saying what is wrong. Neither the
// secret nor a token ever reaches a message or a log.
func (e *Edge) authenticate(ctx context.Context, values []string) (principal, error) {
	if len(values) == 0 {
		return principal{}, unauthenticated("send an admin credential as \"Authorization: Bearer …\": " + HowToGetCredential)
	}
	if len(values) > 1 {
		return principal{}, unauthenticated("send one Authorization header")
	}
	scheme, raw, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	raw = strings.TrimSpace(raw)
	if !strings.EqualFold(scheme, "Bearer") || raw == "" {
		return principal{}, unauthenticated("send an admin credential as \"Authorization: Bearer …\": " + HowToGetCredential)
	}
	if e.cfg.Operator.Matches(raw) {
		return principal{operator: true}, nil
	}
	c, err := e.cfg.Verifier.Verify(ctx, raw)
	if err == nil {
		err = c.Validate()
	}
	switch {
	case authn.ReasonOf(err) == authn.ReasonOtherKind:
		return principal{}, unauthenticated(err.Error() + ": " + HowToGetCredential)
	case errors.Is(err, authn.ErrInvalidToken):
		// The verifier's reasons are written to be shown ("the token
		// expired at …").
		return principal{}, unauthenticated(err.Error())
	case err != nil:
		return principal{}, unauthenticated("the bearer token is not valid: " + HowToGetCredential)
	case !c.IsAdmin():
		return principal{}, unauthenticated("this is an MCP token, which cannot administer: " + HowToGetCredential)
	}
	return principal{caller: c}, nil
}

func unauthenticated(msg string) error {
	return status.Error(codes.Unauthenticated, msg)
}

// outgoing returns ctx for a call to a worker on behalf of p: with fresh
// metadata naming p, and nothing the client sent.
func outgoing(ctx context.Context, p principal) context.Context {
	ctx = metadata.NewOutgoingContext(ctx, metadata.MD{})
	if p.operator {
		return identity.AppendOperatorToOutgoing(ctx)
	}
	return identity.AppendToOutgoing(ctx, p.caller)
}

// invoke forwards one call of m to a worker for p.
func (e *Edge) invoke(ctx context.Context, p principal, m method, in, out any) error {
	return e.reachable(ctx, m, e.cfg.Conn.Invoke(outgoing(ctx, p), m.full, in, out))
}
