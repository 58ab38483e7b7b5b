package keys

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// Register adds KeyService, served from r, to a gRPC server. It is an
// internal service: the worker serves it to front doors, never as a tool,
// and its method (taskwirev1.KeyService_ListPublicKeys_FullMethodName)
// acts for no caller. It serves public keys only.
func (r *Ring) Register(s grpc.ServiceRegistrar) {
	taskwirev1.RegisterKeyServiceServer(s, keyService{ring: r})
}

// keyService implements taskwirev1.KeyServiceServer.
type keyService struct {
	taskwirev1.UnimplementedKeyServiceServer
	ring *Ring
}

// ListPublicKeys implements taskwirev1.KeyServiceServer. It reloads the
// ring from the database first: a front door told of a rotation may ask a
// worker that has not heard of it yet. The keys from configuration are
// left out: each front door adds its own.
func (k keyService) ListPublicKeys(ctx context.Context, _ *taskwirev1.ListPublicKeysRequest) (*taskwirev1.ListPublicKeysResponse, error) {
	if err := k.ring.Load(ctx); err != nil {
		return nil, err
	}
	static := map[string]bool{}
	for _, p := range FromConfig(k.ring.cfg.Retired) {
		static[p.ID] = true
	}
	resp := &taskwirev1.ListPublicKeysResponse{}
	for _, p := range k.ring.Public() {
		if static[p.ID] && p.VerifyUntil.IsZero() {
			continue
		}
		pk := &taskwirev1.PublicKey{Kid: p.ID, PublicKey: p.Key}
		if !p.VerifyUntil.IsZero() {
			pk.VerifyUntil = timestamppb.New(p.VerifyUntil)
		}
		resp.Keys = append(resp.Keys, pk)
	}
	return resp, nil
}
