package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
)

// DomainError translates an error from ent into a domainerr kind, once, at
// the edge of the data layer. Errors that already have a kind pass through,
// and so do context errors (also when the driver reported the cancellation
// in its own words), so the worker can answer Canceled or DeadlineExceeded.
// Services should turn the not-found and conflict cases they can foresee into
// messages of their own before this; what reaches here gets a generic one.
func DomainError(ctx context.Context, err error) error {
	var de *domainerr.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %v", ctx.Err(), err)
	case ent.IsNotFound(err):
		return domainerr.Wrap(domainerr.NotFound, err, "Not found: check the name or ref and try again")
	case ent.IsConstraintError(err):
		return domainerr.Wrap(domainerr.Conflict, err, "This conflicts with a change made at the same time: read again and retry")
	}
	return domainerr.Wrap(domainerr.Internal, err, "internal error")
}
