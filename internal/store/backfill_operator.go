package store

import (
	"context"
	"log/slog"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenant"
)

// FirstOperator makes the account of the first tenant's first owner a
// platform operator when no account is one: at the first start, once the
// owner's account exists, and on migrating a database from before
// operators (schema 5), so that someone can reach the operator pages of
// the console. It changes nothing while any operator exists (the last
// one cannot be revoked), nor when that owner has no account yet: the
// next migration or `taskwire admin operators grant` does it then.
func FirstOperator(ctx context.Context, client *ent.Client, log *slog.Logger) error {
	// Accounts and members span tenants: this is system work.
	ctx = privacy.DecisionContext(ctx, privacy.Allow)
	if n, err := client.Account.Query().Where(account.Operator(true)).Count(ctx); err != nil || n > 0 {
		return err
	}
	first, err := client.Tenant.Query().Order(ent.Asc(tenant.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	owner, err := client.Member.Query().
		Where(member.TenantID(first.ID), member.RoleEQ(member.RoleOwner), member.RemovedAtIsNil(), member.AccountIDNotNil()).
		Order(ent.Asc(member.FieldCreatedAt), ent.Asc(member.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := client.Account.UpdateOneID(*owner.AccountID).SetOperator(true).Exec(ctx); err != nil {
		return err
	}
	log.InfoContext(ctx, "the first owner's account is a platform operator", "tenant", first.Slug, "handle", owner.Handle, "account", *owner.AccountID)
	return nil
}
