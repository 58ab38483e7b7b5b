package sessions

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/passkey"
)

// Passkeys sign people in instead of passwords: discoverable WebAuthn
// credentials, so nobody types an email, with the authenticator's user
// verification (PIN, fingerprint) required, which makes a passkey two
// factors on its own. The relying party is the deployment: its ID is the
// public URL's host and the only origin it accepts is the public URL's,
// both from the worker's configuration, never from the browser.

// PasskeyTTL is how long a passkey ceremony's state is good for: a person
// has that long to touch the authenticator.
const PasskeyTTL = 5 * time.Minute

// ByPasskey is the session.method of a sign-in with a passkey.
const ByPasskey = "passkey"

// maxPasskeys bounds an account's passkeys: more than anyone has devices.
const maxPasskeys = 20

// errNoPasskeys answers every passkey call of a worker that does not know
// the deployment's public URL.
var errNoPasskeys = domainerr.New(domainerr.Conflict,
	"Passkeys are not available on this Taskwire: its administrator must set the public URL (--public-url) to a host name, not an IP address, on every worker.")

// newRelyingParty is the WebAuthn relying party of publicURL: nil, with
// why, when its host cannot be one (browsers refuse IP addresses).
func newRelyingParty(publicURL string) (*webauthn.WebAuthn, error) {
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the public URL %q is not an absolute http(s) URL", publicURL)
	}
	if err := protocol.ValidateRPID(u.Hostname()); err != nil {
		return nil, fmt.Errorf("the public URL's host %q cannot name passkeys: %w", u.Hostname(), err)
	}
	timeout := webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyTTL, TimeoutUVD: PasskeyTTL}
	return webauthn.New(&webauthn.Config{
		RPID: u.Hostname(), RPDisplayName: "Taskwire", RPOrigins: []string{u.Scheme + "://" + u.Host},
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification: protocol.VerificationRequired,
		},
		Timeouts: webauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
}

// passkeyUser is an account as WebAuthn sees it: its handle and passkeys.
type passkeyUser struct {
	acc  *ent.Account
	keys []*ent.Passkey
}

// userHandle is the WebAuthn user handle of an account: its id, 8 bytes
// big-endian. It is no personal data, and it never changes.
func userHandle(account int) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(account))
}

// accountOfHandle is the account id of a user handle; 0 for none.
func accountOfHandle(h []byte) int {
	if len(h) != 8 {
		return 0
	}
	id := binary.BigEndian.Uint64(h)
	if id == 0 || id > 1<<62 {
		return 0
	}
	return int(id)
}

func (u *passkeyUser) WebAuthnID() []byte { return userHandle(u.acc.ID) }

// WebAuthnName is what an authenticator lists the passkey under.
func (u *passkeyUser) WebAuthnName() string {
	if u.acc.Email != nil {
		return *u.acc.Email
	}
	if u.acc.DisplayName != "" {
		return u.acc.DisplayName
	}
	return "Taskwire account " + strconv.Itoa(u.acc.ID)
}

func (u *passkeyUser) WebAuthnDisplayName() string {
	if u.acc.DisplayName != "" {
		return u.acc.DisplayName
	}
	return u.WebAuthnName()
}

func (u *passkeyUser) WebAuthnCredentials() []webauthn.Credential {
	out := make([]webauthn.Credential, 0, len(u.keys))
	for _, k := range u.keys {
		out = append(out, credentialOf(k))
	}
	return out
}

// credentialOf is the credential record of a stored passkey.
func credentialOf(k *ent.Passkey) webauthn.Credential {
	transports := make([]protocol.AuthenticatorTransport, 0, len(k.Transports))
	for _, t := range k.Transports {
		transports = append(transports, protocol.AuthenticatorTransport(t))
	}
	return webauthn.Credential{
		ID: k.CredentialID, PublicKey: k.PublicKey, AttestationType: k.AttestationType, Transport: transports,
		Flags:         webauthn.CredentialFlags{UserPresent: true, UserVerified: true, BackupEligible: k.BackupEligible, BackupState: k.BackupState},
		Authenticator: webauthn.Authenticator{AAGUID: k.Aaguid, SignCount: k.SignCount},
	}
}

// passkeyUserOf loads acc's passkeys, oldest first.
func (s *Service) passkeyUserOf(ctx context.Context, c *ent.Client, acc *ent.Account) (*passkeyUser, error) {
	keys, err := c.Passkey.Query().Where(passkey.AccountID(acc.ID)).Order(passkey.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	return &passkeyUser{acc: acc, keys: keys}, nil
}

// ceremony is what a Begin call answers: the options for the browser and
// the state to keep, which expires by the service's clock.
func (s *Service) ceremony(options any, state *webauthn.SessionData) (optionsJSON string, stateJSON []byte, err error) {
	state.Expires = s.now().Add(PasskeyTTL)
	o, err := json.Marshal(options)
	if err != nil {
		return "", nil, err
	}
	st, err := json.Marshal(state)
	return string(o), st, err
}

// openState is the ceremony state a Begin call made, refused when it is
// not one, or is past its 5 minutes. The expiry is checked here, by the
// service's clock, and not again by the library's.
func (s *Service) openState(state []byte) (webauthn.SessionData, error) {
	var sd webauthn.SessionData
	if err := json.Unmarshal(state, &sd); err != nil || sd.Challenge == "" || sd.Expires.IsZero() {
		return sd, domainerr.New(domainerr.Invalid, "This passkey request is not one Taskwire started: start again from the page.")
	}
	if !s.now().Before(sd.Expires) {
		return sd, domainerr.New(domainerr.Invalid, "This passkey request expired after %s: start again.", spoken(PasskeyTTL))
	}
	sd.Expires = time.Time{}
	return sd, nil
}

// ceremonyFailed logs why WebAuthn refused what the browser sent (the
// library's details are for the log) and answers refusal, which says
// what to do.
func (s *Service) ceremonyFailed(ctx context.Context, what string, err, refusal error) error {
	var pe *protocol.Error
	details := err.Error()
	if errors.As(err, &pe) {
		details = pe.Details + " " + pe.DevInfo
	}
	s.log.InfoContext(ctx, "sessions: a passkey "+what+" was refused", "err", details)
	return refusal
}
