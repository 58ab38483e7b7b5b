package admin

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/services/keys"
)

// RotateSigningKey implements adminv1.AdminServiceServer.
func (s *Service) RotateSigningKey(ctx context.Context, req *adminv1.RotateSigningKeyRequest) (*adminv1.RotateSigningKeyResponse, error) {
	return call(ctx, s, req, s.rotateSigningKey)
}

func (s *Service) rotateSigningKey(ctx context.Context, a actor, _ *adminv1.RotateSigningKeyRequest) (*adminv1.RotateSigningKeyResponse, error) {
	if err := s.manageKeys(a, "rotate the signing key"); err != nil {
		return nil, err
	}
	rot, err := s.keys.Rotate(ctx)
	if err != nil {
		return nil, err
	}
	resp := &adminv1.RotateSigningKeyResponse{Current: signingKeyToProto(rot.Current)}
	if rot.Previous.ID != "" {
		resp.Previous = signingKeyToProto(rot.Previous)
	}
	return resp, nil
}

// ListSigningKeys implements adminv1.AdminServiceServer.
func (s *Service) ListSigningKeys(ctx context.Context, req *adminv1.ListSigningKeysRequest) (*adminv1.ListSigningKeysResponse, error) {
	return call(ctx, s, req, s.listSigningKeys)
}

func (s *Service) listSigningKeys(ctx context.Context, a actor, _ *adminv1.ListSigningKeysRequest) (*adminv1.ListSigningKeysResponse, error) {
	if err := s.manageKeys(a, "list the signing keys"); err != nil {
		return nil, err
	}
	infos, err := s.keys.List(ctx)
	if err != nil {
		return nil, err
	}
	resp := &adminv1.ListSigningKeysResponse{Keys: make([]*adminv1.SigningKey, 0, len(infos))}
	for _, i := range infos {
		resp.Keys = append(resp.Keys, signingKeyToProto(i))
	}
	return resp, nil
}

// manageKeys refuses everyone but operators, and every caller on a worker
// without a keyring.
func (s *Service) manageKeys(a actor, what string) error {
	if err := a.operatorOnly(what); err != nil {
		return err
	}
	if s.keys == nil {
		return domainerr.New(domainerr.Unavailable, "this worker has no keyring, so it cannot %s: try again, or ask the operators to give workers the signing key", what)
	}
	return nil
}

func signingKeyToProto(i keys.Info) *adminv1.SigningKey {
	return &adminv1.SigningKey{
		Kid: i.ID, CreateTime: timestamppb.New(i.Created), Current: i.Current,
		RetireTime: optionalTime(nonZero(i.Retired)), VerifyUntil: optionalTime(nonZero(i.VerifyUntil)),
	}
}

// nonZero is t, or nil when t is zero.
func nonZero(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
