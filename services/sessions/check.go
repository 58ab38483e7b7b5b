package sessions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/session"
)

// CheckSession implements taskwirev1.SessionServiceServer.
func (s *Service) CheckSession(ctx context.Context, req *taskwirev1.CheckSessionRequest) (*taskwirev1.CheckSessionResponse, error) {
	resp, err := s.checkSession(ctx, req.GetCookie())
	return done(ctx, resp, err)
}

func (s *Service) checkSession(ctx context.Context, cookie string) (*taskwirev1.CheckSessionResponse, error) {
	row, err := s.byCookie(ctx, cookie)
	if err != nil {
		return nil, err
	}
	acc, err := s.liveSession(ctx, row)
	if err != nil {
		return nil, err
	}
	s.touch(ctx, row)
	ms, err := memberships(ctx, s.client, acc.ID)
	if err != nil {
		return nil, err
	}
	out := accountToProto(acc)
	if out.Passkeys, err = s.passkeyCount(ctx, acc.ID); err != nil {
		return nil, err
	}
	return &taskwirev1.CheckSessionResponse{Session: s.sessionToProto(row), Account: out, Memberships: membershipsToProto(ms)}, nil
}

// byCookie returns the session a cookie names, if the cookie holds its
// secret. A cookie that does not is logged as a security event: it was
// made up or tampered with.
func (s *Service) byCookie(ctx context.Context, cookie string) (*ent.Session, error) {
	sid, secret, ok := parseCookie(cookie)
	if !ok {
		return nil, errBadCookie
	}
	row, err := s.bySID(ctx, sid)
	if err != nil {
		return nil, err
	}
	if !sameHash(row.SecretHash, secret) {
		s.security(ctx, "a session cookie with a wrong secret was refused", slog.String("sid", sid))
		return nil, errBadCookie
	}
	return row, nil
}

// bySID returns the session with id sid.
func (s *Service) bySID(ctx context.Context, sid string) (*ent.Session, error) {
	row, err := s.client.Session.Query().Where(session.Sid(sid)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errBadCookie
	}
	return row, err
}

// liveSession returns the account of row, or why the session is over:
// signed out, idle too long, past its lifetime, or its account disabled.
func (s *Service) liveSession(ctx context.Context, row *ent.Session) (*ent.Account, error) {
	now := s.now()
	switch {
	case row.EndedAt != nil:
		return nil, errEnded
	case !now.Before(row.LastSeenAt.Add(s.idle)):
		return nil, domainerr.New(domainerr.Unauthenticated,
			"Your session ended after %s without use: sign in again.", spoken(s.idle))
	case !now.Before(row.ExpiresAt):
		return nil, domainerr.New(domainerr.Unauthenticated,
			"Your session reached its lifetime of %s: sign in again.", spoken(row.ExpiresAt.Sub(row.CreatedAt)))
	}
	acc, err := liveAccount(ctx, s.client, row.AccountID)
	if errors.Is(err, errDisabled) {
		return nil, errAccountGone
	}
	return acc, err
}

// touch notes that row was used now, at most once per TouchEvery; the
// idle timeout counts from it. A failure is logged, not answered: the
// session is live either way. The note is written with the call's own
// context, as a token's use is (worker.checkCredential): a call whose
// caller is gone must not wait on a lock for it, and the session's next
// call writes it.
func (s *Service) touch(ctx context.Context, row *ent.Session) {
	now := s.now()
	if now.Sub(row.LastSeenAt) < TouchEvery {
		return
	}
	err := s.client.Session.Update().
		Where(session.ID(row.ID), session.LastSeenAtLT(now.Add(-TouchEvery))).
		SetLastSeenAt(now).Exec(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		s.log.WarnContext(ctx, "sessions: cannot note the session's last use", "sid", row.Sid, "err", err)
		return
	}
	row.LastSeenAt = now
}

// spoken writes a duration as a person reads it: "7 days", "12 hours",
// "90 minutes".
func spoken(d time.Duration) string {
	plural := func(n time.Duration, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return plural(d/(24*time.Hour), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return plural(d/time.Hour, "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return plural(d/time.Minute, "minute")
	}
	return d.String()
}
