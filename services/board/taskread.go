package board

import (
	"context"
	"fmt"
	"slices"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/ent/workitem"
)

// tasks_get is the call assistants make most, and on SQLite building its
// statements through the query builder cost about as much as running them.
// So it reads the task and its work state in one statement whose text is
// built once per dialect, with the query builder still, scanned by ent's
// generated code. It bypasses ent's privacy policy, so it applies that
// policy's rule itself: rows of the context's tenant only.

// taskByNumber selects every column of a task, in task.Columns order, then
// the state of its work item (NULL without one), by tenant and number.
var taskByNumber = map[string]string{
	dialect.SQLite:   taskByNumberQuery(dialect.SQLite),
	dialect.Postgres: taskByNumberQuery(dialect.Postgres),
}

func taskByNumberQuery(dia string) string {
	b := entsql.Dialect(dia)
	t, w := b.Table(task.Table), b.Table(workitem.Table).As("w")
	cols := make([]string, 0, len(task.Columns)+1)
	for _, c := range task.Columns {
		cols = append(cols, t.C(c))
	}
	cols = append(cols, w.C(workitem.FieldState))
	q, args := b.Select(cols...).From(t).
		LeftJoin(w).OnP(entsql.And(
		entsql.ColumnsEQ(w.C(workitem.FieldTaskID), t.C(task.FieldID)),
		entsql.ColumnsEQ(w.C(workitem.FieldTenantID), t.C(task.FieldTenantID)),
	)).
		Where(entsql.And(entsql.EQ(t.C(task.FieldTenantID), 0), entsql.EQ(t.C(task.FieldNumber), 0))).
		Query()
	if len(args) != 2 {
		panic(fmt.Sprintf("board: task by number takes %d arguments, want tenant and number", len(args)))
	}
	return q
}

// readTask returns the task with ref in the caller's tenant, deleted or
// not, and the state of its work item ("" without one), as findAnyTask and
// lookupNames would. The task is for reading: it has no client, so its
// edge queries and updates are not available.
func readTask(ctx context.Context, c *ent.Client, a actor, ref string) (*ent.Task, string, error) {
	n, err := parseRef(ref)
	if err != nil {
		return nil, "", err
	}
	if id, ok := tenantscope.FromContext(ctx); !ok || id != a.tenant.ID {
		return nil, "", privacy.Denyf("read a task of tenant %d from a context not scoped to it", a.tenant.ID)
	}
	drv := c.Driver()
	query, ok := taskByNumber[drv.Dialect()]
	if !ok {
		return nil, "", fmt.Errorf("board: no task read for dialect %q", drv.Dialect())
	}
	// The read is one row by a unique index: microseconds. Letting the
	// database watch ctx for cancellation would cost more (database/sql
	// and the SQLite driver each start a goroutine per statement), so it
	// runs to the end; a call cancelled before it does not start it.
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	var rows entsql.Rows
	if err := drv.Query(context.WithoutCancel(ctx), query, []any{a.tenant.ID, n}, &rows); err != nil {
		return nil, "", err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, "", err
		}
		return nil, "", noTask(a, n)
	}
	t := new(ent.Task)
	values, err := t.ScanValues(task.Columns)
	if err != nil {
		return nil, "", err
	}
	var state entsql.NullString
	if err := rows.Scan(append(slices.Clip(values), &state)...); err != nil {
		return nil, "", err
	}
	if err := t.AssignValues(task.Columns, values); err != nil {
		return nil, "", err
	}
	return t, state.String, rows.Close()
}
