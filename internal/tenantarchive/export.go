package tenantarchive

import (
	"context"
	"crypto/rand"
	stdsql "database/sql"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// pageSize is how many rows an export reads at a time: the export holds
// one page of rows, never a whole table.
var pageSize = 1000

// Export writes the archive of the tenant slug to out, entry by entry as
// its rows are read, and returns the manifest written (its Meta is a
// Meta; its entries' Records count each kind). Nothing is held whole, so
// out may be a network stream. Every row is read in one read-only
// transaction, so the archive is the tenant at one instant even while
// the tenant is in use. An unknown tenant is a NotFound domain error.
// The caller owns client; Export does not close out.
func Export(ctx context.Context, client *ent.Client, slug string, out io.Writer) (archive.Manifest, error) {
	w := archive.NewWriter(out, Format, Version)
	meta, err := write(ctx, client, slug, w)
	if err != nil {
		return archive.Manifest{}, err
	}
	return w.Close(meta)
}

// ExportFile is Export to a new file at path, which must not exist
// (archive.ErrExists): the file appears only once whole, private to its
// owner.
func ExportFile(ctx context.Context, client *ent.Client, slug, path string) (archive.Manifest, error) {
	return archive.WriteFile(path, Format, Version, func(w *archive.Writer) (any, error) {
		return write(ctx, client, slug, w)
	})
}

// write writes the entries of the tenant slug to w and returns the
// manifest's Meta.
func write(ctx context.Context, client *ent.Client, slug string, w *archive.Writer) (Meta, error) {
	tx, err := client.BeginTx(ctx, &stdsql.TxOptions{ReadOnly: true, Isolation: stdsql.LevelRepeatableRead})
	if err != nil {
		return Meta{}, store.DomainError(ctx, err)
	}
	defer tx.Rollback() // read only: nothing to commit
	t, scoped, err := tenancy.Tenant(ctx, tx.Client(), slug)
	if err != nil {
		return Meta{}, err
	}
	x := &exporter{
		tx: tx, tenant: t, at: time.Now().UTC().Truncate(time.Microsecond),
		members: map[int]string{}, boards: map[int]string{}, tasks: map[int]int{},
	}
	for _, kind := range x.kinds() {
		if err := x.entry(scoped, w, kind.name, kind.write); err != nil {
			return Meta{}, fmt.Errorf("export %s of tenant %s: %w", kind.name, slug, err)
		}
	}
	return Meta{
		ExportID: rand.Text(), Taskwire: buildVersion(), SchemaVersion: store.SchemaVersion,
		Tenant: TenantMeta{
			Slug: t.Slug, Name: t.Name, CreatedAt: utc(t.CreatedAt),
			TaskSeq: t.TaskSeq, CommentSeq: t.CommentSeq, NoteSeq: t.NoteSeq,
		},
	}, nil
}

// exporter is one export under way: its transaction, and the names of
// the rows written so far, by id, for the rows that refer to them.
type exporter struct {
	tx      *ent.Tx
	tenant  *ent.Tenant
	at      time.Time // when the export began: a claimed item's lease ends then
	members map[int]string
	boards  map[int]string
	tasks   map[int]int // number by id
}

// kind is one entry and the function writing its records.
type kind struct {
	name  string
	write func(ctx context.Context, enc *json.Encoder) error
}

func (x *exporter) kinds() []kind {
	return []kind{
		{MembersEntry, x.writeMembers}, {BoardsEntry, x.writeBoards}, {TasksEntry, x.writeTasks},
		{LinksEntry, x.writeLinks}, {CommentsEntry, x.writeComments}, {ContextNotesEntry, x.writeNotes},
		{WorkItemsEntry, x.writeWork}, {ActivityEntry, x.writeActivity}, {AuditEventsEntry, x.writeAudit},
	}
}

// entry writes the entry name with write, one JSON line per record.
func (x *exporter) entry(ctx context.Context, w *archive.Writer, name string, write func(context.Context, *json.Encoder) error) error {
	ew, err := w.Create(name)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(ew)
	enc.SetEscapeHTML(false) // text as members wrote it; JSON needs no HTML escapes
	return write(ctx, enc)
}

// pages calls each for every row the query page returns, a page at a
// time: page returns the first pageSize rows after last (all from the
// first when last is nil), in the order of an index whose first column
// is tenant_id, so that every page is one range of that index, however
// many rows the tenant and the others hold. (Paging by id, with the
// tenant's filter beside it, made SQLite sort all of the tenant's rows
// for every page.)
func pages[T any](ctx context.Context, page func(ctx context.Context, last *T) ([]*T, error), each func(*T) error) error {
	var last *T
	for {
		rows, err := page(ctx, last)
		if err != nil {
			return store.DomainError(ctx, err)
		}
		for _, r := range rows {
			if err := each(r); err != nil {
				return err
			}
		}
		if len(rows) < pageSize {
			return nil
		}
		last = rows[len(rows)-1]
	}
}

// after is the predicate of the rows after the key vals of columns, in
// their order: the keyset of the next page.
func after(columns []string, vals ...any) func(*sql.Selector) {
	return func(s *sql.Selector) {
		qualified := make([]string, len(columns))
		for i, c := range columns {
			qualified[i] = s.C(c)
		}
		s.Where(sql.CompositeGT(qualified, vals...))
	}
}

// buildVersion is the version go install recorded, "(devel)" otherwise.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
