// Package taskdb reads Taskwire's tasks straight from its SQLite file, for the
// benchmark's peer servers: they answer tasks_get and tasks_list over the
// same rows Taskwire serves, with one query per call and no token check.
package taskdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Task is one task as the peers return it: the fields Taskwire's tasks_get
// returns that live in the tasks row and its board and author.
type Task struct {
	Ref       string   `json:"ref"`
	Board     string   `json:"board"`
	Title     string   `json:"title"`
	Note      string   `json:"note,omitempty"`
	Lane      string   `json:"lane"`
	Kind      string   `json:"kind"`
	Size      string   `json:"size,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	Project   string   `json:"project,omitempty"`
	Position  int      `json:"position"`
	Version   int      `json:"version"`
	Flagged   bool     `json:"flagged,omitempty"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
	CreatedBy string   `json:"created_by"`
}

// ErrNotFound is returned for a ref that names no live task.
var ErrNotFound = errors.New("no such task")

const columns = `t.number, b.slug, t.title, t.note, t.lane, t.kind, COALESCE(t.size, ''),
	t.labels, t.project, t.position, t.version, t.flagged, t.created_at, t.updated_at, m.handle
	FROM tasks t JOIN boards b ON b.id = t.board_id JOIN members m ON m.id = t.created_by_id`

// DB is a read-only handle on a Taskwire SQLite file, for one tenant.
type DB struct {
	db     *sql.DB
	tenant int
	get    *sql.Stmt
	list   *sql.Stmt
}

// Open opens path read-only and prepares the two queries for tenant.
func Open(path string, tenant int) (*DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	d := &DB{db: db, tenant: tenant}
	if d.get, err = db.Prepare("SELECT " + columns +
		" WHERE t.tenant_id = ? AND t.number = ? AND t.deleted_at IS NULL"); err != nil {
		db.Close()
		return nil, fmt.Errorf("prepare get: %w", err)
	}
	if d.list, err = db.Prepare("SELECT " + columns +
		" WHERE t.tenant_id = ? AND t.number > ? AND t.deleted_at IS NULL ORDER BY t.number LIMIT ?"); err != nil {
		db.Close()
		return nil, fmt.Errorf("prepare list: %w", err)
	}
	return d, nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Get returns the task ref ("T-12").
func (d *DB) Get(ctx context.Context, ref string) (Task, error) {
	n, err := ParseRef(ref)
	if err != nil {
		return Task{}, err
	}
	rows, err := d.get.QueryContext(ctx, d.tenant, n)
	if err != nil {
		return Task{}, err
	}
	tasks, err := scan(rows)
	if err != nil {
		return Task{}, err
	}
	if len(tasks) == 0 {
		return Task{}, fmt.Errorf("%w: %s", ErrNotFound, ref)
	}
	return tasks[0], nil
}

// List returns up to limit tasks after the ref number after, by ref.
func (d *DB) List(ctx context.Context, after, limit int) ([]Task, error) {
	rows, err := d.list.QueryContext(ctx, d.tenant, after, Limit(limit))
	if err != nil {
		return nil, err
	}
	return scan(rows)
}

// ErrBadCursor is returned by Page for a cursor that is not a ref.
var ErrBadCursor = errors.New("bad cursor")

// Page lists the page after cursor (a ref; "" for the first page) with up
// to limit tasks, and the cursor of the next page ("" when this page is
// not full): what both peers' tasks_list answers.
func (d *DB) Page(ctx context.Context, cursor string, limit int) (tasks []Task, next string, err error) {
	after := 0
	if cursor != "" {
		if after, _ = ParseRef(cursor); after == 0 {
			return nil, "", ErrBadCursor
		}
	}
	if tasks, err = d.List(ctx, after, limit); err != nil {
		return nil, "", err
	}
	if n := len(tasks); n > 0 && n == Limit(limit) {
		next = tasks[n-1].Ref
	}
	return tasks, next, nil
}

// Limit is the page size a list asks for: 1 to 100, default 25.
func Limit(n int) int {
	if n <= 0 || n > 100 {
		return 25
	}
	return n
}

// ParseRef turns "T-12" into 12.
func ParseRef(ref string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(ref, "T-"))
	if err != nil || n <= 0 || !strings.HasPrefix(ref, "T-") {
		return 0, fmt.Errorf("%w: %q is not a ref like T-12", ErrNotFound, ref)
	}
	return n, nil
}

func scan(rows *sql.Rows) ([]Task, error) {
	defer rows.Close()
	var out []Task
	for rows.Next() {
		var t Task
		var n int
		var labels string
		if err := rows.Scan(&n, &t.Board, &t.Title, &t.Note, &t.Lane, &t.Kind, &t.Size,
			&labels, &t.Project, &t.Position, &t.Version, &t.Flagged, &t.CreatedAt, &t.UpdatedAt, &t.CreatedBy); err != nil {
			return nil, err
		}
		t.Ref = "T-" + strconv.Itoa(n)
		if err := json.Unmarshal([]byte(labels), &t.Labels); err != nil {
			return nil, fmt.Errorf("labels of T-%d: %w", n, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
