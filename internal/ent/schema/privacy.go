package schema

import (
	"context"

	"entgo.io/ent"
	"entgo.io/ent/entql"

	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
)

// Policy of the TenantMixin: the second line of defence behind the explicit
// tenant filter each service puts on every query. Work scoped to a tenant
// (tenantscope.NewContext) sees and changes only that tenant's rows; work
// with no tenant is denied unless the context was marked as system work with
// privacy.DecisionContext(ctx, privacy.Allow), which skips every rule.
func (TenantMixin) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{
			filterTenant(),
		},
		Mutation: privacy.MutationPolicy{
			createInTenant(),
			filterTenant(),
		},
	}
}

// filterTenant narrows queries, updates and deletes to the context's tenant.
func filterTenant() privacy.QueryMutationRule {
	type tenantFilter interface {
		WhereTenantID(entql.IntP)
	}
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		id, ok := tenantscope.FromContext(ctx)
		if !ok {
			return privacy.Denyf("no tenant in context")
		}
		tf, ok := f.(tenantFilter)
		if !ok {
			return privacy.Denyf("unexpected filter type %T", f)
		}
		tf.WhereTenantID(entql.IntEQ(id))
		return privacy.Skip
	})
}

// createInTenant denies creating a row for any tenant but the context's:
// filters do not apply to inserts.
func createInTenant() privacy.MutationRule {
	return privacy.MutationRuleFunc(func(ctx context.Context, m ent.Mutation) error {
		if !m.Op().Is(ent.OpCreate) {
			return privacy.Skip
		}
		id, ok := tenantscope.FromContext(ctx)
		if !ok {
			return privacy.Denyf("no tenant in context")
		}
		if v, ok := m.Field("tenant_id"); !ok || v != id {
			return privacy.Denyf("create in tenant %v from a context scoped to tenant %d", v, id)
		}
		return privacy.Skip
	})
}
