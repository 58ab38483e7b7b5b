package sessions

import (
	"context"
	"fmt"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// CheckCaller refuses a console caller (identity.KindSession) unless its
// session, named by c.TokenID, is live and the member it acts as is its
// account's and not removed: what the worker asks on every call a console
// makes, in place of the token check, so a sign-out or a removal holds
// from the next call. It returns whether the account is a platform
// operator, so that the operator flag, too, holds from the next call. The
// refusals are domainerr Unauthenticated.
func (s *Service) CheckCaller(ctx context.Context, c identity.Caller) (identity.SessionAccount, error) {
	row, err := s.bySID(ctx, c.TokenID)
	var acc *ent.Account
	if err == nil {
		acc, err = s.liveSession(ctx, row)
	}
	if err == nil {
		err = s.checkMember(ctx, c, row.AccountID)
	}
	if err != nil {
		return identity.SessionAccount{}, store.DomainError(ctx, err)
	}
	person := fmt.Sprintf("account %d", acc.ID)
	if acc.Email != nil {
		person = *acc.Email
	}
	return identity.SessionAccount{Operator: acc.Operator, Person: person}, nil
}

// checkMember refuses a caller whose member is not the account's.
func (s *Service) checkMember(ctx context.Context, c identity.Caller, account int) error {
	t, ctx, err := tenancy.Tenant(ctx, s.client, c.Tenant)
	if err == nil {
		var n int
		n, err = s.client.Member.Query().
			Where(member.TenantID(t.ID), member.ID(c.Member), member.AccountID(account), member.RemovedAtIsNil()).
			Count(ctx)
		if err == nil && n == 1 {
			return nil
		}
	}
	if err != nil && domainerr.KindOf(err) != domainerr.NotFound {
		return err
	}
	return domainerr.New(domainerr.Unauthenticated,
		"You are not a member of tenant %s (any more): sign in again, or ask an owner or admin of %s.", c.Tenant, c.Tenant)
}
