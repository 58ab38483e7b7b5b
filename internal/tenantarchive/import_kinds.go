package tenantarchive

import (
	"context"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// loader is one entry and the function loading its records.
type loader struct {
	name string
	load func(ctx context.Context, r *archive.Reader) (int64, error)
}

func (im *importer) kinds() []loader {
	return []loader{
		{MembersEntry, im.loadMembers}, {BoardsEntry, im.loadBoards}, {TasksEntry, im.loadTasks},
		{LinksEntry, im.loadLinks}, {CommentsEntry, im.loadComments}, {ContextNotesEntry, im.loadNotes},
		{WorkItemsEntry, im.loadWork}, {ActivityEntry, im.loadActivity}, {AuditEventsEntry, im.loadAudit},
	}
}

// member returns the id of the member handle, loaded already.
func (im *importer) member(handle string) (int, error) {
	id, ok := im.members[handle]
	if !ok {
		return 0, missing("member", handle, MembersEntry)
	}
	return id, nil
}

func (im *importer) memberIDs(handles []string) ([]int, error) {
	ids := make([]int, 0, len(handles))
	for _, h := range handles {
		id, err := im.member(h)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func (im *importer) board(slug string) (int, error) {
	id, ok := im.boards[slug]
	if !ok {
		return 0, missing("board", slug, BoardsEntry)
	}
	return id, nil
}

func (im *importer) task(r string) (int, error) {
	n, err := parseRef(r)
	if err != nil {
		return 0, domainerr.New(domainerr.Invalid, "%v", err)
	}
	id, ok := im.tasks[n]
	if !ok {
		return 0, missing("task", r, TasksEntry)
	}
	return id, nil
}

// loadMembers creates the members, then sets the sponsors, which may come
// after their assistants. Members get new ids, as every member does, and
// no sign-in account: people regain access by invitation or by a token
// the operator mints.
func (im *importer) loadMembers(ctx context.Context, r *archive.Reader) (int64, error) {
	sponsors := map[string]string{} // sponsor by assistant; a tenant's members are few
	n, err := records(r, MembersEntry, func(_ int, rec *memberRecord) error {
		if err := tenancy.CheckHandle(rec.Handle); err != nil {
			return err
		}
		if _, dup := im.members[rec.Handle]; dup {
			return domainerr.New(domainerr.Invalid, "member %q is listed twice", rec.Handle)
		}
		if err := tenancy.CheckRole(rec.Handle, member.Kind(rec.Kind), member.Role(rec.Role)); err != nil {
			return err
		}
		m, err := im.tx.Member.Create().SetTenantID(im.tenant.ID).SetHandle(rec.Handle).SetDisplayName(rec.DisplayName).
			SetKind(member.Kind(rec.Kind)).SetRole(member.Role(rec.Role)).SetCreatedAt(rec.CreatedAt).
			SetNillableRemovedAt(rec.RemovedAt).Save(ctx)
		if err != nil {
			return err
		}
		im.members[rec.Handle] = m.ID
		if rec.Sponsor != "" {
			sponsors[rec.Handle] = rec.Sponsor
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for assistant, sponsor := range sponsors {
		id, err := im.member(sponsor)
		if err != nil {
			return 0, domainerr.New(domainerr.Invalid, "%s, member %s: %s", MembersEntry, assistant, domainerr.Message(err))
		}
		if err := im.tx.Member.UpdateOneID(im.members[assistant]).SetSponsorID(id).Exec(ctx); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (im *importer) loadBoards(ctx context.Context, r *archive.Reader) (int64, error) {
	return records(r, BoardsEntry, func(_ int, rec *boardRecord) error {
		if err := tenancy.CheckBoardSlug(rec.Slug); err != nil {
			return err
		}
		if _, dup := im.boards[rec.Slug]; dup {
			return domainerr.New(domainerr.Invalid, "board %q is listed twice", rec.Slug)
		}
		limits := rec.WIPLimits
		if limits == nil {
			limits = map[string]int{}
		}
		b, err := im.tx.Board.Create().SetTenantID(im.tenant.ID).SetSlug(rec.Slug).SetName(rec.Name).SetIsDefault(rec.IsDefault).
			SetRules(rec.Rules).SetWipLimits(limits).SetKinds(rec.Kinds).SetVersion(rec.Version).
			SetCreatedAt(rec.CreatedAt).SetNillableArchivedAt(rec.ArchivedAt).Save(ctx)
		if err != nil {
			return err
		}
		im.boards[rec.Slug] = b.ID
		return nil
	})
}
