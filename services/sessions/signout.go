package sessions

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/session"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/audit"
)

// SignOut implements taskwirev1.SessionServiceServer.
func (s *Service) SignOut(ctx context.Context, req *taskwirev1.SignOutRequest) (*taskwirev1.SignOutResponse, error) {
	resp, err := s.signOut(ctx, req)
	return done(ctx, resp, err)
}

// signOut ends the cookie's session, or with everywhere every live
// session of its account. A session that ended already ends nothing, so
// signing out twice is no error.
func (s *Service) signOut(ctx context.Context, req *taskwirev1.SignOutRequest) (*taskwirev1.SignOutResponse, error) {
	began := time.Now()
	row, err := s.byCookie(ctx, req.GetCookie())
	if err != nil {
		return nil, err
	}
	var ended int
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		end := tx.Session.Update().Where(session.AccountID(row.AccountID), session.EndedAtIsNil())
		if !req.GetEverywhere() {
			end.Where(session.ID(row.ID))
		}
		if ended, err = end.SetEndedAt(s.now()).Save(ctx); err != nil || ended == 0 {
			return err
		}
		ms, err := memberships(ctx, tx.Client(), row.AccountID)
		if err != nil {
			return err
		}
		ev := accountEvent{method: MethodSignOut, sid: row.Sid, outcome: audit.OutcomeOK, start: began}
		if req.GetEverywhere() {
			ev.targets = []string{"scope=everywhere"}
		}
		return s.auditTx(ctx, tx, ms, ev)
	})
	if err != nil {
		return nil, err
	}
	return &taskwirev1.SignOutResponse{Ended: int32(ended)}, nil
}
