package decisions

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/decision"
	"github.com/taskwire/taskwire/internal/store"
)

// Bounds of what a decision holds: a question a person reads at a glance,
// arguments small enough to show on one page.
const (
	maxQuestion  = 500
	maxArguments = 64 << 10
	maxDigest    = 128
)

// Actions recorded in the activity log.
const (
	ActionRequested = "decision.requested"
	ActionApproved  = "decision.approved"
	ActionDeclined  = "decision.declined"
)

// RequestDecision records a pending decision for the caller's call, or
// returns the live one, pending or approved and unused, for the same
// member, tool and arguments: a client that cannot carry the decision's
// id from one call to the next (no URL elicitation) still finds the
// approval a person gave in the inbox when it calls again.
func (s *Service) RequestDecision(ctx context.Context, req *taskwirev1.RequestDecisionRequest) (*taskwirev1.RequestDecisionResponse, error) {
	var created bool
	var tenant string
	resp, err := call(ctx, s, req, func(ctx context.Context, c caller, req *taskwirev1.RequestDecisionRequest) (*taskwirev1.RequestDecisionResponse, error) {
		d, isNew, err := s.request(ctx, c, req)
		if err != nil {
			return nil, err
		}
		created, tenant = isNew, c.Tenant
		p, err := s.proto(ctx, c, d)
		return &taskwirev1.RequestDecisionResponse{Decision: p}, err
	})
	if err == nil && created {
		s.changed(ctx, tenant, resp.Decision.GetId())
	}
	return resp, err
}

func (s *Service) request(ctx context.Context, c caller, req *taskwirev1.RequestDecisionRequest) (d *ent.Decision, created bool, err error) {
	if err := checkRequest(req); err != nil {
		return nil, false, err
	}
	// A decision can only allow a call its asker may make: no one is
	// asked about a tool the caller could not run anyway.
	if err := mayUse(c, req.GetTool()); err != nil {
		return nil, false, err
	}
	now := s.now()
	err = store.WithTx(ctx, s.cfg.Client, func(tx *ent.Tx) error {
		d, err = tx.Decision.Query().Where(
			decision.TenantID(c.TenantID), decision.RequestedBy(c.MemberID), decision.Tool(req.GetTool()),
			decision.Digest(req.GetDigest()), decision.ExpiresAtGT(now), decision.UsedAtIsNil(),
			decision.StateIn(decision.StatePending, decision.StateApproved),
		).Order(ent.Desc(decision.FieldID)).First(ctx)
		if err == nil || !ent.IsNotFound(err) {
			return err
		}
		d, err = tx.Decision.Create().SetTenantID(c.TenantID).SetKey(rand.Text()).
			SetTool(req.GetTool()).SetQuestion(req.GetQuestion()).SetArguments(req.GetArgumentsJson()).
			SetDigest(req.GetDigest()).SetRequestedBy(c.MemberID).
			SetCreatedAt(now).SetExpiresAt(now.Add(TTL)).Save(ctx)
		if err != nil {
			return err
		}
		created = true
		return record(ctx, tx, c, ActionRequested, d)
	})
	return d, created, err
}

// checkRequest validates a request before anything is read.
func checkRequest(req *taskwirev1.RequestDecisionRequest) error {
	rule, ok := toolRule(req.GetTool())
	switch {
	case !ok:
		return domainerr.New(domainerr.Invalid, "tool %q is not a tool of this server: name the tool whose call needs a person's decision", req.GetTool())
	case rule.Scope == "":
		return domainerr.New(domainerr.Invalid, "tool %s needs no decision", req.GetTool())
	case req.GetQuestion() == "" || utf8.RuneCountInString(req.GetQuestion()) > maxQuestion:
		return domainerr.New(domainerr.Invalid, "question must be 1 to %d characters: the sentence a person answers yes or no to", maxQuestion)
	case req.GetDigest() == "" || len(req.GetDigest()) > maxDigest:
		return domainerr.New(domainerr.Invalid, "digest must be 1 to %d characters: the digest of the call's arguments", maxDigest)
	case len(req.GetArgumentsJson()) > maxArguments:
		return domainerr.New(domainerr.Invalid, "arguments_json is %d bytes: at most %d fit on a decision's page", len(req.GetArgumentsJson()), maxArguments)
	case !json.Valid([]byte(req.GetArgumentsJson())):
		return domainerr.New(domainerr.Invalid, "arguments_json is not JSON: pass the call's arguments as a JSON object")
	}
	return nil
}
