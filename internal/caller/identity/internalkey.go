package identity

import (
	"context"
	"crypto/subtle"

	"google.golang.org/grpc/metadata"
)

// MDInternalKey carries the key front doors share with workers. A worker
// configured with a key trusts the caller in the metadata only when the
// call carries the same key: without it, anything that can reach the
// worker's port could claim to be any member.
const MDInternalKey = "x-taskwire-internal-key"

// InternalKey is gRPC per-call credentials adding the internal key to
// every call of a client connection.
type InternalKey string

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (k InternalKey) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{MDInternalKey: string(k)}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials. The
// key travels over loopback or a private network; deployments that cross
// untrusted networks add TLS.
func (InternalKey) RequireTransportSecurity() bool { return false }

// HasInternalKey reports whether the incoming call carries key.
func HasInternalKey(ctx context.Context, key string) bool {
	v := metadata.ValueFromIncomingContext(ctx, MDInternalKey)
	return len(v) == 1 && subtle.ConstantTimeCompare([]byte(v[0]), []byte(key)) == 1
}
