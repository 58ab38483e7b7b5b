package sessions

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
)

// sessionToProto describes a session, with when it ends of idleness.
func (s *Service) sessionToProto(row *ent.Session) *taskwirev1.Session {
	return &taskwirev1.Session{
		Id:             row.Sid,
		CreateTime:     timestamppb.New(row.CreatedAt),
		LastSeenTime:   timestamppb.New(row.LastSeenAt),
		IdleExpireTime: timestamppb.New(row.LastSeenAt.Add(s.idle)),
		ExpireTime:     timestamppb.New(row.ExpiresAt),
		Method:         row.Method,
		UserAgent:      row.UserAgent,
	}
}

func accountToProto(a *ent.Account) *taskwirev1.Account {
	out := &taskwirev1.Account{Id: int64(a.ID), DisplayName: a.DisplayName, HasPassword: a.PasswordHash != nil, Operator: a.Operator}
	if a.Email != nil {
		out.Email = *a.Email
	}
	return out
}
