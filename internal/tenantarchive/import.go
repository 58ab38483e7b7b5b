package tenantarchive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/auditevent"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasktitletoken"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// Options change what Import does.
type Options struct {
	// Tenant is the slug of the tenant to create; empty: the archive's.
	Tenant string
}

// Report is what Import did.
type Report struct {
	Tenant   string // the slug of the tenant imported into
	ExportID string // the export the archive holds
	// AlreadyImported tells that the tenant existed, imported from this
	// very export: nothing was changed.
	AlreadyImported bool
	// Records counts the records loaded, by entry; nil when nothing was.
	Records map[string]int64
}

// Import loads the archive r as a new tenant of client's database: the
// archive's slug, or opts.Tenant. It checks the whole archive first
// (format version, checksums, record counts) and then loads every record
// in one transaction, so a damaged or invalid archive changes nothing,
// wherever the damage is. Refs, numbers, history, authors (by handle),
// timestamps and versions are kept; ids are the new database's.
//
// A tenant of that slug imported from the same export is left as it is
// (Report.AlreadyImported), so running an import twice changes nothing;
// any other tenant of that slug is a Conflict. A damaged archive is an
// *archive.DamagedError; an archive of another format version, or a
// record that does not fit, an Invalid domain error. The caller owns
// client and r.
func Import(ctx context.Context, client *ent.Client, r *archive.Reader, opts Options) (Report, error) {
	meta, err := check(r)
	if err != nil {
		return Report{}, err
	}
	slug := opts.Tenant
	if slug == "" {
		slug = meta.Tenant.Slug
	}
	if err := tenancy.CheckTenantSlug(slug); err != nil {
		return Report{}, err
	}
	rep := Report{Tenant: slug, ExportID: meta.ExportID}
	if done, err := imported(ctx, client, slug, meta.ExportID); err != nil || done {
		rep.AlreadyImported = done
		return rep, err
	}
	err = store.WithTx(ctx, client, func(tx *ent.Tx) error {
		rep.Records, err = load(ctx, tx, r, slug, meta)
		return err
	})
	var damaged *archive.DamagedError
	switch {
	case errors.As(err, &damaged):
		return Report{}, damaged
	case err != nil:
		return Report{}, store.DomainError(ctx, err)
	}
	freshenStats(ctx, client)
	return rep, nil
}

// grownTables are the tables an import may grow the most.
var grownTables = []string{task.Table, tasktitletoken.Table, comment.Table, activity.Table, auditevent.Table}

// freshenStats has PostgreSQL take new statistics of the tables an
// import grew, as other bulk writes do (store.FreshenStats): with the
// old ones, the new tenant's first lists and searches could be planned
// as for a few rows. A failure is left alone: the import has committed,
// and autovacuum takes the statistics a little later anyway.
func freshenStats(ctx context.Context, client *ent.Client) {
	for _, table := range grownTables {
		_ = store.FreshenStats(ctx, client, table)
	}
}

// check refuses an archive this build cannot load whole, before anything
// is written, and returns its Meta.
func check(r *archive.Reader) (Meta, error) {
	m := r.Manifest()
	var meta Meta
	if err := json.Unmarshal(m.Meta, &meta); err != nil || meta.ExportID == "" {
		return Meta{}, domainerr.New(domainerr.Invalid, "the archive's manifest has no tenant export meta: it is not a Taskwire tenant export")
	}
	if m.Version != Version {
		return Meta{}, domainerr.New(domainerr.Invalid,
			"the archive is in tenant export format version %d, written by Taskwire %s; this Taskwire reads version %d only: import it with a Taskwire that reads version %d (the one that wrote it, or a newer one)",
			m.Version, meta.Taskwire, Version, m.Version)
	}
	for _, name := range Entries {
		if _, ok := m.Entry(name); !ok {
			return Meta{}, domainerr.New(domainerr.Invalid, "the archive has no %s: it is not a whole tenant export of format version %d", name, Version)
		}
	}
	return meta, r.Verify()
}

// imported reports whether the tenant slug exists, imported from the
// export exportID; a tenant of that slug with another origin is a
// Conflict.
func imported(ctx context.Context, client *ent.Client, slug, exportID string) (bool, error) {
	t, err := client.Tenant.Query().Where(tenant.Slug(slug)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, store.DomainError(ctx, err)
	case t.ImportedFrom != nil && *t.ImportedFrom == exportID:
		return true, nil
	}
	return false, domainerr.New(domainerr.Conflict,
		"a tenant %q exists already: import the archive under another slug (taskwire import --tenant NEWSLUG)", slug)
}

// load creates the tenant slug and loads every entry of r into it, in tx.
func load(ctx context.Context, tx *ent.Tx, r *archive.Reader, slug string, meta Meta) (map[string]int64, error) {
	tm := meta.Tenant
	t, err := tx.Tenant.Create().SetSlug(slug).SetName(tm.Name).SetCreatedAt(tm.CreatedAt).
		SetImportedFrom(meta.ExportID).Save(ctx)
	if err != nil {
		return nil, err
	}
	im := &importer{tx: tx, tenant: t, members: map[string]int{}, boards: map[string]int{}, tasks: map[int]int{},
		seqs: seqs{task: tm.TaskSeq, comment: tm.CommentSeq, note: tm.NoteSeq}}
	scoped := tenantscope.NewContext(ctx, t.ID)
	counts := map[string]int64{}
	for _, k := range im.kinds() {
		n, err := k.load(scoped, r)
		if err != nil {
			return nil, entryError(k.name, err)
		}
		counts[k.name] = n
	}
	return counts, im.finish(scoped)
}

// entryError names the entry a load failed in, unless the archive is
// damaged (which names it already).
func entryError(name string, err error) error {
	var damaged *archive.DamagedError
	switch {
	case errors.As(err, &damaged) || domainerr.KindOf(err) != domainerr.Internal:
		return err
	case ent.IsConstraintError(err) || ent.IsValidationError(err):
		return domainerr.Wrap(domainerr.Invalid, err, "%s holds a record this database refuses (a repeated number or name, or a value out of range): the archive is not a valid tenant export", name)
	}
	return fmt.Errorf("load %s: %w", name, err)
}

// seqs are the last numbers handed out in the tenant.
type seqs struct{ task, comment, note int }

// importer is one import under way: its transaction, the tenant created,
// and the ids of the rows loaded so far by the names records use.
type importer struct {
	tx      *ent.Tx
	tenant  *ent.Tenant
	members map[string]int // id by handle
	boards  map[string]int // id by slug
	tasks   map[int]int    // id by number
	seqs    seqs           // raised to the highest number loaded
}

// finish sets the tenant's sequences, so that new tasks, comments and
// notes continue after the imported ones.
func (im *importer) finish(ctx context.Context) error {
	return im.tx.Tenant.UpdateOneID(im.tenant.ID).
		SetTaskSeq(im.seqs.task).SetCommentSeq(im.seqs.comment).SetNoteSeq(im.seqs.note).Exec(ctx)
}
