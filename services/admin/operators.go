package admin

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/sessions"
)

// SetOperator implements adminv1.AdminServiceServer.
func (s *Service) SetOperator(ctx context.Context, req *adminv1.SetOperatorRequest) (*adminv1.SetOperatorResponse, error) {
	return call(ctx, s, req, s.setOperator)
}

// setOperator grants or revokes the operator flag of the account of an
// email. The audit log is kept per tenant and this names none, so the
// change is logged here, naming who made it.
func (s *Service) setOperator(ctx context.Context, a actor, req *adminv1.SetOperatorRequest) (*adminv1.SetOperatorResponse, error) {
	if err := a.operatorOnly("grant or revoke operators"); err != nil {
		return nil, err
	}
	email := sessions.NormalizeEmail(req.GetEmail())
	if email == "" {
		return nil, domainerr.New(domainerr.Invalid, "name the account by the email its person signs in with")
	}
	var acc *ent.Account
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		var err error
		if acc, err = tx.Account.Query().Where(account.Email(email)).Only(ctx); ent.IsNotFound(err) {
			return domainerr.New(domainerr.NotFound,
				"no account signs in with %s: invite the person to a tenant first, or check the email", email)
		} else if err != nil || acc.Operator == req.GetOperator() {
			return err
		}
		if !req.GetOperator() {
			if err := keepAnOperator(ctx, tx, email); err != nil {
				return err
			}
		}
		acc, err = tx.Account.UpdateOne(acc).SetOperator(req.GetOperator()).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	by := a.person
	if by == "" {
		by = "the operator secret"
	}
	s.log.InfoContext(ctx, "admin: operator flag set", "account", acc.ID, "email", email, "operator", acc.Operator, "by", by)
	return &adminv1.SetOperatorResponse{Account: operatorToProto(acc), Operator: acc.Operator}, nil
}

// keepAnOperator refuses to revoke the last operator who can sign in (a
// disabled account counts for none): the deployment would be left with
// no one in the console who can create tenants or rotate keys (the
// operator secret still could).
func keepAnOperator(ctx context.Context, tx *ent.Tx, email string) error {
	n, err := tx.Account.Query().Where(account.Operator(true), account.DisabledAtIsNil()).Count(ctx)
	if err != nil {
		return err
	}
	if n <= 1 {
		return domainerr.New(domainerr.Conflict,
			"%s is the last operator and cannot be revoked: grant another account first", email)
	}
	return nil
}

// ListOperators implements adminv1.AdminServiceServer.
func (s *Service) ListOperators(ctx context.Context, req *adminv1.ListOperatorsRequest) (*adminv1.ListOperatorsResponse, error) {
	return call(ctx, s, req, func(ctx context.Context, a actor, _ *adminv1.ListOperatorsRequest) (*adminv1.ListOperatorsResponse, error) {
		if err := a.operatorOnly("list operators"); err != nil {
			return nil, err
		}
		rows, err := s.client.Account.Query().Where(account.Operator(true)).Order(ent.Asc(account.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		resp := &adminv1.ListOperatorsResponse{Operators: make([]*adminv1.Operator, 0, len(rows))}
		for _, acc := range rows {
			resp.Operators = append(resp.Operators, operatorToProto(acc))
		}
		return resp, nil
	})
}

func operatorToProto(acc *ent.Account) *adminv1.Operator {
	out := &adminv1.Operator{DisplayName: acc.DisplayName, CreateTime: timestamppb.New(acc.CreatedAt)}
	if acc.Email != nil {
		out.Email = *acc.Email
	}
	return out
}
