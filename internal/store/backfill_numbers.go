package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// numberRowsPerTenant brings rows written before schema version 2 (or by
// a worker of an older build during a rollout) to what version 2 writes:
//
//   - Comments and context notes are numbered per tenant, in creation
//     order (id order), after the numbers the tenant's counter handed out
//     already; the counters are raised past them.
//   - Task activity named comments and notes by their ids, a sequence of
//     the whole platform, under "comment_id" and "note_id": it now names
//     them by number under "comment" and "note".
func numberRowsPerTenant(ctx context.Context, drv *entsql.Driver) error {
	tx, err := drv.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: backfill: %w", err)
	}
	defer tx.Rollback()
	for _, n := range []struct{ table, counter string }{{"comments", "comment_seq"}, {"context_notes", "note_seq"}} {
		if err := numberRows(ctx, tx, drv.Dialect(), n.table, n.counter); err != nil {
			return fmt.Errorf("store: backfill %s: %w", n.table, err)
		}
	}
	if err := renumberActivity(ctx, tx, drv.Dialect()); err != nil {
		return fmt.Errorf("store: backfill activities: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: backfill: %w", err)
	}
	return nil
}

// numberRows numbers the rows of table without a number, per tenant in id
// order after the tenant's counter, then raises the counter past them.
// Both SQLite (3.33 on) and PostgreSQL take this UPDATE … FROM. On
// PostgreSQL it first locks the rows of the tenants concerned, as a write
// that numbers a new row does, so that a worker numbering rows meanwhile
// (a migration run again after a rollout) waits for the raised counter;
// SQLite runs one writing transaction at a time anyway.
func numberRows(ctx context.Context, tx *sql.Tx, dia, table, counter string) error {
	if dia == dialect.Postgres {
		_, err := tx.ExecContext(ctx, `SELECT t.id FROM tenants t WHERE EXISTS (
			SELECT 1 FROM `+table+` x WHERE x.tenant_id = t.id AND x.number IS NULL) ORDER BY t.id FOR UPDATE`)
		if err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE `+table+` SET number = r.n FROM (
		SELECT x.id AS id, t.`+counter+` + row_number() OVER (PARTITION BY x.tenant_id ORDER BY x.id) AS n
		FROM `+table+` x JOIN tenants t ON t.id = x.tenant_id WHERE x.number IS NULL) r
		WHERE `+table+`.id = r.id`)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE tenants SET `+counter+` = (SELECT max(number) FROM `+table+` WHERE tenant_id = tenants.id)
		WHERE `+counter+` < (SELECT max(number) FROM `+table+` WHERE tenant_id = tenants.id)`)
	return err
}

// renumbered are the activity detail keys that held an id, the table of
// the rows they name, and the key that names them by number.
var renumbered = []struct{ old, table, key string }{
	{"comment_id", "comments", "comment"},
	{"note_id", "context_notes", "note"},
}

// namingActions are the activities whose detail named a comment or note.
const namingActions = `'comment.added', 'comment.edited', 'work.completed', 'work.released', 'context.added'`

// activityBatch is how many activities renumberActivity reads at a time.
const activityBatch = 500

// renumberActivity rewrites the detail of every activity that names a
// comment or note by id, in batches.
func renumberActivity(ctx context.Context, tx *sql.Tx, dia string) error {
	for after := 0; ; {
		details, last, err := oldDetails(ctx, tx, after)
		if err != nil || last == 0 {
			return err
		}
		for id, detail := range details {
			if err := renumberDetail(ctx, tx, dia, id, detail); err != nil {
				return err
			}
		}
		after = last
	}
}

// oldDetails returns the details, by activity id, of the activities after
// id after (a batch of them) that still name something by id, and the
// last id read (0: none left). The database reads only details whose
// text holds an old key: the migration runs on every start of serve, and
// most activities, once converted, need not travel and be decoded again.
func oldDetails(ctx context.Context, tx *sql.Tx, after int) (map[int]map[string]any, int, error) {
	rows, err := tx.QueryContext(ctx, fmt.Sprintf(`SELECT id, detail FROM activities WHERE id > %d AND action IN (%s)
		AND (CAST(detail AS TEXT) LIKE '%%comment_id%%' OR CAST(detail AS TEXT) LIKE '%%note_id%%') ORDER BY id LIMIT %d`,
		after, namingActions, activityBatch))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out, last := map[int]map[string]any{}, 0
	for rows.Next() {
		var id int
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, 0, err
		}
		last = id
		var detail map[string]any
		if json.Unmarshal(raw, &detail) != nil {
			continue // not ours to repair
		}
		for _, r := range renumbered {
			if _, ok := detail[r.old]; ok {
				out[id] = detail
			}
		}
	}
	return out, last, rows.Err()
}

// renumberDetail replaces, in the detail of activity id, each id of a
// comment or note by its number.
func renumberDetail(ctx context.Context, tx *sql.Tx, dia string, id int, detail map[string]any) error {
	for _, r := range renumbered {
		v, ok := detail[r.old]
		if !ok {
			continue
		}
		delete(detail, r.old)
		old, ok := v.(float64)
		if !ok {
			continue
		}
		var n sql.NullInt64
		err := tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT number FROM %s WHERE id = %d`, r.table, int(old))).Scan(&n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if n.Valid {
			detail[r.key] = n.Int64
		}
	}
	b, err := json.Marshal(detail)
	if err != nil {
		return err
	}
	q, args := entsql.Dialect(dia).Update("activities").Set("detail", json.RawMessage(b)).Where(entsql.EQ("id", id)).Query()
	_, err = tx.ExecContext(ctx, q, args...)
	return err
}
