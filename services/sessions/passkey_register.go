package sessions

import (
	"context"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
)

// maxPasskeyName bounds what a person calls a passkey.
const maxPasskeyName = 60

// BeginPasskeyRegistration implements taskwirev1.SessionServiceServer.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, req *taskwirev1.BeginPasskeyRegistrationRequest) (*taskwirev1.BeginPasskeyRegistrationResponse, error) {
	resp, err := s.beginRegistration(ctx, req.GetCookie())
	return done(ctx, resp, err)
}

func (s *Service) beginRegistration(ctx context.Context, cookie string) (*taskwirev1.BeginPasskeyRegistrationResponse, error) {
	u, err := s.cookieUser(ctx, cookie)
	if err != nil {
		return nil, err
	}
	if len(u.keys) >= maxPasskeys {
		return nil, domainerr.New(domainerr.Conflict, "You have %d passkeys, the most an account may have: remove one you no longer use first.", maxPasskeys)
	}
	creation, state, err := s.rp.BeginRegistration(u,
		webauthn.WithExclusions(webauthn.Credentials(u.WebAuthnCredentials()).CredentialDescriptors()),
		webauthn.WithExtensions(webauthn.WithExtensionCredProps()))
	if err != nil {
		return nil, err
	}
	options, st, err := s.ceremony(creation, state)
	return &taskwirev1.BeginPasskeyRegistrationResponse{OptionsJson: options, State: st}, err
}

// cookieUser is the account of a live session's cookie with its
// passkeys; refused on a worker without passkeys.
func (s *Service) cookieUser(ctx context.Context, cookie string) (*passkeyUser, error) {
	if s.rp == nil {
		return nil, errNoPasskeys
	}
	row, err := s.byCookie(ctx, cookie)
	if err != nil {
		return nil, err
	}
	acc, err := s.liveSession(ctx, row)
	if err != nil {
		return nil, err
	}
	return s.passkeyUserOf(ctx, s.client, acc)
}

// FinishPasskeyRegistration implements taskwirev1.SessionServiceServer.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, req *taskwirev1.FinishPasskeyRegistrationRequest) (*taskwirev1.FinishPasskeyRegistrationResponse, error) {
	resp, err := s.finishRegistration(ctx, req)
	return done(ctx, resp, err)
}

// finishRegistration checks the authenticator's answer against the
// state of this account's ceremony and keeps the passkey.
func (s *Service) finishRegistration(ctx context.Context, req *taskwirev1.FinishPasskeyRegistrationRequest) (*taskwirev1.FinishPasskeyRegistrationResponse, error) {
	u, err := s.cookieUser(ctx, req.GetCookie())
	if err != nil {
		return nil, err
	}
	state, err := s.openState(req.GetState())
	if err != nil {
		return nil, err
	}
	refused := domainerr.New(domainerr.Invalid, "Your browser's new passkey was not accepted: try again, or use another authenticator.")
	parsed, err := protocol.ParseCredentialCreationResponseBytes([]byte(req.GetCredentialJson()))
	if err != nil {
		return nil, s.ceremonyFailed(ctx, "registration", err, refused)
	}
	cred, err := s.rp.CreateCredential(u, state, parsed)
	if err != nil {
		return nil, s.ceremonyFailed(ctx, "registration", err, refused)
	}
	row, err := s.keep(ctx, u.acc, cred, passkeyName(req.GetName()))
	if err != nil {
		return nil, err
	}
	return &taskwirev1.FinishPasskeyRegistrationResponse{Passkey: passkeyToProto(row)}, nil
}

// keep stores cred as a passkey of acc.
func (s *Service) keep(ctx context.Context, acc *ent.Account, cred *webauthn.Credential, name string) (*ent.Passkey, error) {
	transports := make([]string, 0, len(cred.Transport))
	for _, t := range cred.Transport {
		transports = append(transports, string(t))
	}
	row, err := s.client.Passkey.Create().
		SetAccountID(acc.ID).SetCredentialID(cred.ID).SetPublicKey(cred.PublicKey).
		SetAttestationType(cred.AttestationType).SetAaguid(cred.Authenticator.AAGUID).
		SetSignCount(cred.Authenticator.SignCount).SetTransports(transports).
		SetBackupEligible(cred.Flags.BackupEligible).SetBackupState(cred.Flags.BackupState).
		SetName(name).SetCreatedAt(s.now()).
		Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, domainerr.Wrap(domainerr.Conflict, err, "This passkey is registered already: sign in with it, or add another authenticator.")
	}
	return row, err
}

// passkeyName is the name a person gave, trimmed and bounded; "Passkey"
// when they gave none.
func passkeyName(name string) string {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return "Passkey"
	}
	return clip(name, maxPasskeyName)
}

// passkeyToProto describes a passkey; its key material stays here.
func passkeyToProto(k *ent.Passkey) *taskwirev1.Passkey {
	out := &taskwirev1.Passkey{Id: int64(k.ID), Name: k.Name, CreateTime: timestamppb.New(k.CreatedAt), BackedUp: k.BackupState}
	if k.LastUsedAt != nil {
		out.LastUseTime = timestamppb.New(*k.LastUsedAt)
	}
	return out
}
