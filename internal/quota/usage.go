package quota

import (
	"context"
	"errors"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
)

// Reader tells how much of its quotas a caller's tenant uses, for whoami
// (access.QuotaReader).
type Reader struct {
	client *ent.Client
	limits Limits
	now    func() time.Time
}

// NewReader returns the Reader of limits over client.
func NewReader(client *ent.Client, limits Limits) (*Reader, error) {
	if client == nil {
		return nil, errors.New("quota: NewReader needs a client")
	}
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	return &Reader{client: client, limits: limits, now: time.Now}, nil
}

// Usage counts what a's tenant holds against each quota that is set, and
// a's own live tokens; nil when no quota is.
func (r *Reader) Usage(ctx context.Context, a identity.Access) (*taskwirev1.Quota, error) {
	if r.limits == (Limits{}) {
		return nil, nil
	}
	ctx = tenantscope.NewContext(ctx, a.TenantID)
	q := &taskwirev1.Quota{}
	var err error
	if q.Tasks, err = use(ctx, r.limits.Tasks, heldTasks(r.client.Task.Query(), a.TenantID).Count); err != nil {
		return nil, err
	}
	if q.Members, err = use(ctx, r.limits.Members, currentMembers(r.client.Member.Query(), a.TenantID).Count); err != nil {
		return nil, err
	}
	if q.Boards, err = use(ctx, r.limits.Boards, heldBoards(r.client.Board.Query(), a.TenantID).Count); err != nil {
		return nil, err
	}
	tokens := liveTokens(r.client.Token.Query(), a.TenantID, a.MemberID, r.now().UTC())
	if q.Tokens, err = use(ctx, r.limits.TokensPerMember, tokens.Count); err != nil {
		return nil, err
	}
	return q, nil
}

// use counts what a quota of limit holds; nil when limit is 0 (none).
func use(ctx context.Context, limit int, count func(context.Context) (int, error)) (*taskwirev1.QuotaUse, error) {
	if limit == 0 {
		return nil, nil
	}
	n, err := count(ctx)
	if err != nil {
		return nil, store.DomainError(ctx, err)
	}
	return &taskwirev1.QuotaUse{Used: int32(min(n, 1<<31-1)), Limit: int32(min(limit, 1<<31-1))}, nil
}
