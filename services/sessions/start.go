package sessions

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/services/audit"
)

// How a session signed in (session.method).
const (
	ByPassword = "password"
	ByLink     = "link"
)

// maxUserAgent bounds what a session keeps of the browser's User-Agent.
const maxUserAgent = 200

// start creates a session for acc in tx, and writes the sign-in to the
// audit log of each of the account's tenants in the same transaction.
func (s *Service) start(ctx context.Context, tx *ent.Tx, acc *ent.Account, method string, req *taskwirev1.SignInRequest, began time.Time) (*taskwirev1.SignInResponse, error) {
	now := s.now()
	sid, secret := newSID(), newSecret()
	row, err := tx.Session.Create().
		SetSid(sid).SetSecretHash(hashSecret(secret)).SetAccountID(acc.ID).
		SetMethod(method).SetUserAgent(clip(req.GetUserAgent(), maxUserAgent)).SetClientAddr(clip(req.GetClientAddr(), 100)).
		SetCreatedAt(now).SetLastSeenAt(now).SetExpiresAt(now.Add(s.lifetime)).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := memberships(ctx, tx.Client(), acc.ID)
	if err != nil {
		return nil, err
	}
	ev := accountEvent{method: MethodSignIn, sid: sid, outcome: audit.OutcomeOK, targets: []string{"method=" + method}, start: began}
	if err := s.auditTx(ctx, tx, ms, ev); err != nil {
		return nil, err
	}
	return &taskwirev1.SignInResponse{
		Cookie: cookieValue(sid, secret), Session: s.sessionToProto(row),
		Account: accountToProto(acc), Memberships: membershipsToProto(ms),
	}, nil
}

// liveAccount is the account with id, refused when disabled.
func liveAccount(ctx context.Context, c *ent.Client, id int) (*ent.Account, error) {
	acc, err := c.Account.Query().Where(account.ID(id)).Only(ctx)
	if err != nil {
		return nil, err
	}
	if acc.DisabledAt != nil {
		return nil, errDisabled
	}
	return acc, nil
}

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
