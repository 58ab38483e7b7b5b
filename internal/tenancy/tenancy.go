// Package tenancy creates and looks up tenants and their members: at the
// first start of a server (Bootstrap), for the admin commands that add
// members or issue tokens for them, and for the worker, which reads the
// membership behind every call through a Resolver.
package tenancy

import (
	"context"
	"regexp"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
)

// nameRE is the shape of tenant slugs, member handles and board slugs: they
// appear in tokens, URLs and tool arguments.
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// checkName returns an Invalid error unless v is a valid slug or handle.
func checkName(what, v string) error {
	if !nameRE.MatchString(v) {
		return domainerr.New(domainerr.Invalid,
			"%s %q is not valid: use 1 to 40 lowercase letters, digits or dashes, starting with a letter, e.g. \"acme\"", what, v)
	}
	return nil
}

// scope resolves the tenant with slug and returns it with ctx scoped to it.
func scope(ctx context.Context, client *ent.Client, slug string) (*ent.Tenant, context.Context, error) {
	t, err := client.Tenant.Query().Where(tenant.Slug(slug)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ctx, domainerr.Wrap(domainerr.NotFound, err, "no tenant %q", slug)
	}
	if err != nil {
		return nil, ctx, store.DomainError(ctx, err)
	}
	return t, tenantscope.NewContext(ctx, t.ID), nil
}
