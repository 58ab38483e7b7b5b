package identity

import "context"

// Access is what the caller of one call is on its tenant, as the worker
// resolved it when the call began: the member's current role, kind and
// sponsor, beside the Caller its token names. The worker resolves it once
// per call, right after the caller's identity, refuses what the role does
// not permit, and puts it into the context (WithAccess), where services
// read it (AccessFrom) instead of looking up tenant and member again;
// services/access returns it to the front door and to the caller.
//
// Access is resolved per call. A worker with NATS may answer it from
// internal/caller/callercache, which keeps it up to its MaxAge (30 s by
// default) but forgets it at once when a role change, removal or
// revocation is announced or made in the process, or NATS drops: a role
// changed through the API applies from the next call on; one changed in
// the database behind the API's back, within MaxAge.
type Access struct {
	TenantID    int
	Tenant      string // slug, e.g. "acme"
	TenantName  string
	MemberID    int
	Handle      string // e.g. "alice"
	DisplayName string
	Kind        string // "human" or "assistant"
	Role        string // "owner", "admin", "member" or "viewer" (authz.Role*)
	SponsorID   int    // the sponsoring member's id for an assistant, else 0
	Sponsor     string // the sponsoring member's handle, else ""
}

type accessKey struct{}

// WithAccess returns ctx carrying a. Only the worker's interceptor chain
// sets it, from the verified caller.
func WithAccess(ctx context.Context, a Access) context.Context {
	return context.WithValue(ctx, accessKey{}, a)
}

// AccessFrom returns the Access in ctx, if the worker resolved one.
func AccessFrom(ctx context.Context) (Access, bool) {
	a, ok := ctx.Value(accessKey{}).(Access)
	return a, ok
}
