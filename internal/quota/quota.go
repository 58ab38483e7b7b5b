// Package quota bounds what one tenant may hold: its tasks, its boards,
// its members, and each member's live tokens. Without bounds one tenant could fill the
// database that every tenant shares (30,000 tasks took three seconds).
//
// Each check runs inside the write's transaction, after the tenant's row
// is locked (Lock: CheckMembers and CheckTokens take it, CheckTasks is
// given the row the allocation of task numbers locked): on PostgreSQL the lock makes every other write of the
// tenant that counts wait until this one commits, and under READ
// COMMITTED each statement after the wait sees what the other committed;
// SQLite lets one writing transaction run at a time anyway. So two
// concurrent writes cannot both see room for one more and overshoot.
package quota

import (
	"context"
	"fmt"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/token"
)

// Limits are the quotas of every tenant. A zero limit is no limit.
type Limits struct {
	// Tasks is the most tasks a tenant may hold, in every lane; deleted
	// tasks do not count (deleting one takes a person's confirmation).
	Tasks int
	// Members is the most current members a tenant may have, people and
	// assistants; removed members do not count.
	Members int
	// TokensPerMember is the most live tokens (neither revoked nor
	// expired) one member may hold.
	TokensPerMember int
	// Boards is the most boards a tenant may hold, archived ones
	// included (they keep their tasks).
	Boards int
}

// Defaults are the quotas of `taskwire serve` and `taskwire worker`
// unless configured: far above what a team uses, low enough that no
// tenant fills the database by accident or in a loop.
var Defaults = Limits{Tasks: 50_000, Members: 1_000, TokensPerMember: 50, Boards: 100}

// Validate refuses a negative limit.
func (l Limits) Validate() error {
	if l.Tasks < 0 || l.Members < 0 || l.TokensPerMember < 0 || l.Boards < 0 {
		return fmt.Errorf("quota: Limits %+v: want 0 (no limit) or more", l)
	}
	return nil
}

// Lock locks the row of the tenant with id until tx ends, on PostgreSQL
// (SQLite serializes writing transactions already): an update that
// changes nothing still takes the row lock. It is the tenant's one lock:
// every write that checks a quota takes it first, and so do the board's
// writes that number, count or order tasks and the admin API's changes of
// owners, so they all queue in one line. The allocation of task numbers
// (which raises the counter) takes the same row lock. Take it first in the
// transaction, so what is read after it is what the previous such write
// committed.
func Lock(ctx context.Context, tx *ent.Tx, tenantID int) error {
	return tx.Tenant.UpdateOneID(tenantID).AddTaskSeq(0).Exec(ctx)
}

// CheckTasks refuses adding tasks to tenant t when it would then hold
// more than l.Tasks. t is the tenant's row as read in tx once locked, as
// the allocation of task numbers returns it: its counter, the highest
// number any of its tasks has (those being added included), bounds how
// many exist, so the count is read only once the counter passes the
// quota. Most tenants never pay for it, and no check reads the row again.
func (l Limits) CheckTasks(ctx context.Context, tx *ent.Tx, t *ent.Tenant, adding int) error {
	if l.Tasks == 0 {
		return nil
	}
	if t.TaskSeq <= l.Tasks {
		return nil // at most TaskSeq tasks exist, those being added included
	}
	held, err := heldTasks(tx.Task.Query(), t.ID).Count(ctx)
	if err != nil {
		return err
	}
	if held+adding <= l.Tasks {
		return nil
	}
	if adding == 1 {
		return domainerr.New(domainerr.Exhausted,
			"tenant %s holds %d tasks, its quota: nothing was created. Delete tasks that are no longer needed (tasks_delete), or ask the platform operators to raise the quota",
			t.Slug, held)
	}
	return domainerr.New(domainerr.Exhausted,
		"tenant %s holds %d tasks of its quota of %d, so %d more do not fit: nothing was imported. Import at most %d, delete tasks that are no longer needed, or ask the platform operators to raise the quota",
		t.Slug, held, l.Tasks, adding, max(0, l.Tasks-held))
}

// CheckMembers refuses adding a member to tenant t when it has l.Members
// current members already. It locks the tenant's row in tx (Lock) before
// counting, so two additions at once cannot both take the last place.
func (l Limits) CheckMembers(ctx context.Context, tx *ent.Tx, t *ent.Tenant) error {
	if l.Members == 0 {
		return nil
	}
	if err := Lock(ctx, tx, t.ID); err != nil {
		return err
	}
	n, err := currentMembers(tx.Member.Query(), t.ID).Count(ctx)
	if err != nil || n < l.Members {
		return err
	}
	return domainerr.New(domainerr.Exhausted,
		"tenant %s has %d members, its quota: remove members who left (taskwire admin members remove), or ask the platform operators to raise the quota",
		t.Slug, n)
}

// CheckBoards refuses adding a board to tenant t when it holds l.Boards
// boards already. It locks the tenant's row in tx (Lock) before counting,
// so two creations at once cannot both take the last place.
func (l Limits) CheckBoards(ctx context.Context, tx *ent.Tx, t *ent.Tenant) error {
	if l.Boards == 0 {
		return nil
	}
	if err := Lock(ctx, tx, t.ID); err != nil {
		return err
	}
	n, err := heldBoards(tx.Board.Query(), t.ID).Count(ctx)
	if err != nil || n < l.Boards {
		return err
	}
	return domainerr.New(domainerr.Exhausted,
		"tenant %s has %d boards, its quota (archived boards count too): nothing was created. Work on an existing board, or ask the platform operators to raise the quota",
		t.Slug, n)
}

// CheckTokens refuses a new token for member m when m holds
// l.TokensPerMember live tokens already, at now. It locks the tenant's
// row in tx (Lock) before counting, so two creations at once cannot both
// take the last place.
func (l Limits) CheckTokens(ctx context.Context, tx *ent.Tx, m *ent.Member, now time.Time) error {
	if l.TokensPerMember == 0 {
		return nil
	}
	if err := Lock(ctx, tx, m.TenantID); err != nil {
		return err
	}
	n, err := liveTokens(tx.Token.Query(), m.TenantID, m.ID, now).Count(ctx)
	if err != nil || n < l.TokensPerMember {
		return err
	}
	return domainerr.New(domainerr.Exhausted,
		"%s holds %d live tokens, the most one member may: revoke tokens no longer in use (taskwire admin tokens revoke), then create this one",
		m.Handle, n)
}

// heldTasks narrows q to the tasks of tenant that count against
// Limits.Tasks: those not deleted.
func heldTasks(q *ent.TaskQuery, tenantID int) *ent.TaskQuery {
	return q.Where(task.TenantID(tenantID), task.DeletedAtIsNil())
}

// currentMembers narrows q to the members of tenant that count against
// Limits.Members: those not removed.
func currentMembers(q *ent.MemberQuery, tenantID int) *ent.MemberQuery {
	return q.Where(member.TenantID(tenantID), member.RemovedAtIsNil())
}

// heldBoards narrows q to the boards of tenant, which all count against
// Limits.Boards, archived ones included.
func heldBoards(q *ent.BoardQuery, tenantID int) *ent.BoardQuery {
	return q.Where(board.TenantID(tenantID))
}

// liveTokens narrows q to the tokens of member in tenant that are neither
// revoked nor expired at now.
func liveTokens(q *ent.TokenQuery, tenantID, memberID int, now time.Time) *ent.TokenQuery {
	return q.Where(token.TenantID(tenantID), token.MemberID(memberID), token.RevokedAtIsNil(), token.ExpiresAtGT(now))
}
