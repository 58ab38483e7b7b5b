package oauth

import (
	"errors"
	"fmt"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// The OAuth error codes (RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2,
// RFC 8707 §2).
const (
	errInvalidRequest          = "invalid_request"
	errInvalidClient           = "invalid_client"
	errInvalidGrant            = "invalid_grant"
	errUnauthorizedClient      = "unauthorized_client"
	errUnsupportedGrantType    = "unsupported_grant_type"
	errUnsupportedResponseType = "unsupported_response_type"
	errInvalidScope            = "invalid_scope"
	errInvalidTarget           = "invalid_target"
	errAccessDenied            = "access_denied"
	errInvalidRedirectURI      = "invalid_redirect_uri"
	errInvalidClientMetadata   = "invalid_client_metadata"
	errTemporarilyUnavailable  = "temporarily_unavailable"
)

// refusal is a protocol refusal: answered in the response's OAuthError,
// not as a gRPC error, so the front door can send it as RFC 6749 says.
type refusal struct {
	code        string
	description string
}

func (r *refusal) Error() string { return r.code + ": " + r.description }

// refuse returns a refusal with code and a sentence saying what to do.
func refuse(code, format string, args ...any) error {
	return &refusal{code: code, description: fmt.Sprintf(format, args...)}
}

// asRefusal returns the OAuthError err is, or nil when err is no refusal
// (a failure to answer as a gRPC error).
func asRefusal(err error) *taskwirev1.OAuthError {
	var r *refusal
	if errors.As(err, &r) {
		return &taskwirev1.OAuthError{Code: r.code, Description: r.description}
	}
	return nil
}
