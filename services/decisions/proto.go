package decisions

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/decision"
	"github.com/taskwire/taskwire/internal/ent/member"
)

// StateAt is where d stands at now. The database keeps what was decided;
// expiry and use are read from the times: a pending or approved decision
// past its expiry can no longer be made or used.
func StateAt(d *ent.Decision, now time.Time) taskwirev1.DecisionState {
	switch {
	case d.State == decision.StateDeclined:
		return taskwirev1.DecisionState_DECISION_STATE_DECLINED
	case d.State == decision.StateApproved && d.UsedAt != nil:
		return taskwirev1.DecisionState_DECISION_STATE_USED
	case !now.Before(d.ExpiresAt):
		return taskwirev1.DecisionState_DECISION_STATE_EXPIRED
	case d.State == decision.StateApproved:
		return taskwirev1.DecisionState_DECISION_STATE_APPROVED
	}
	return taskwirev1.DecisionState_DECISION_STATE_PENDING
}

// proto returns d as the caller sees it.
func (s *Service) proto(ctx context.Context, c caller, d *ent.Decision) (*taskwirev1.Decision, error) {
	ps, err := s.protos(ctx, c, []*ent.Decision{d})
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// protos returns ds with the handles and names of who asked and decided.
func (s *Service) protos(ctx context.Context, c caller, ds []*ent.Decision) ([]*taskwirev1.Decision, error) {
	ids := make([]int, 0, 2*len(ds))
	for _, d := range ds {
		ids = append(ids, d.RequestedBy)
		if d.DecidedBy != nil {
			ids = append(ids, *d.DecidedBy)
		}
	}
	ms, err := s.cfg.Client.Member.Query().Where(member.TenantID(c.TenantID), member.IDIn(ids...)).WithSponsor().All(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int]*ent.Member, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	now := s.now()
	out := make([]*taskwirev1.Decision, len(ds))
	for i, d := range ds {
		out[i] = protoOf(d, byID, now)
	}
	return out, nil
}

func protoOf(d *ent.Decision, members map[int]*ent.Member, now time.Time) *taskwirev1.Decision {
	p := &taskwirev1.Decision{
		Id: d.Key, Tool: d.Tool, Question: d.Question, ArgumentsJson: d.Arguments, Digest: d.Digest,
		State: StateAt(d, now), Reason: d.Reason,
		CreateTime: timestamppb.New(d.CreatedAt), ExpireTime: timestamppb.New(d.ExpiresAt),
	}
	if m := members[d.RequestedBy]; m != nil {
		p.RequestedBy, p.RequestedByName = m.Handle, m.DisplayName
		if sp := m.Edges.Sponsor; sp != nil {
			p.Sponsor = sp.Handle
		}
	}
	if d.DecidedBy != nil {
		if m := members[*d.DecidedBy]; m != nil {
			p.DecidedBy = m.Handle
		}
	}
	if d.DecidedAt != nil {
		p.DecideTime = timestamppb.New(*d.DecidedAt)
	}
	return p
}

// record writes the activity row of one change to d by c.
func record(ctx context.Context, tx *ent.Tx, c caller, action string, d *ent.Decision) error {
	detail := map[string]any{"decision": d.Key, "tool": d.Tool, "question": d.Question}
	if d.Reason != "" {
		detail["reason"] = d.Reason
	}
	return tx.Activity.Create().SetTenantID(c.TenantID).SetActorID(c.MemberID).
		SetActorKind(activity.ActorKind(c.Kind)).SetAction(action).SetDetail(detail).Exec(ctx)
}
