// Package tenantscope carries the id of the tenant a piece of work acts for
// through a context. The ent privacy rule on every tenant-owned schema reads
// it, so a query that forgot its tenant filter still sees only that tenant's
// rows, and a query made with no tenant at all is denied.
package tenantscope

import "context"

type ctxKey struct{}

// NewContext returns ctx scoped to the tenant with id tenantID. Set it only
// from a tenant resolved from a verified caller, never from request input.
func NewContext(ctx context.Context, tenantID int) context.Context {
	return context.WithValue(ctx, ctxKey{}, tenantID)
}

// FromContext returns the tenant id ctx is scoped to, if any.
func FromContext(ctx context.Context) (int, bool) {
	id, ok := ctx.Value(ctxKey{}).(int)
	return id, ok
}
