package board

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/member"
)

// nameCacheSize bounds the boards and the members a worker remembers,
// each.
const nameCacheSize = 10_000

// nameCache remembers what tasks show of the boards and members they
// refer to: a board's slug, a member's handle and kind. The schema makes
// those immutable and rows are never deleted (members are removed by a
// mark), so a remembered name is never stale, on any worker; what can
// change (a task's work state, a member's role) is always read.
type nameCache struct {
	boards  *lru.Cache[tenantID, string]
	members *lru.Cache[tenantID, *ent.Member]
}

// tenantID is an id of a row in one tenant: rows are only ever looked up
// within the caller's tenant.
type tenantID struct{ tenant, id int }

func newNameCache() *nameCache {
	boards, err := lru.New[tenantID, string](nameCacheSize)
	if err != nil {
		panic(err) // only for a size below 1
	}
	members, err := lru.New[tenantID, *ent.Member](nameCacheSize)
	if err != nil {
		panic(err)
	}
	return &nameCache{boards: boards, members: members}
}

// addBoards puts the slugs of ids into n.boards, reading those not
// remembered in one query.
func (c *nameCache) addBoards(ctx context.Context, cl *ent.Client, a actor, n names, ids []int) error {
	var kept *lru.Cache[tenantID, string]
	if c != nil {
		kept = c.boards
	}
	return fill(kept, a.tenant.ID, ids, n.boards, func(missing []int) ([]*ent.Board, error) {
		return cl.Board.Query().Where(entboard.TenantID(a.tenant.ID), entboard.IDIn(missing...)).
			Select(entboard.FieldSlug).All(ctx)
	}, func(b *ent.Board) (int, string) { return b.ID, b.Slug })
}

// addMembers puts the handles and kinds of ids into n.members, reading
// those neither in n nor remembered in one query.
func (c *nameCache) addMembers(ctx context.Context, cl *ent.Client, a actor, n names, ids []int) error {
	var kept *lru.Cache[tenantID, *ent.Member]
	if c != nil {
		kept = c.members
	}
	return fill(kept, a.tenant.ID, ids, n.members, func(missing []int) ([]*ent.Member, error) {
		// Only what names shows: handles and kinds.
		return cl.Member.Query().Where(member.TenantID(a.tenant.ID), member.IDIn(missing...)).
			Select(member.FieldHandle, member.FieldKind).All(ctx)
	}, func(m *ent.Member) (int, *ent.Member) { return m.ID, m })
}

// fill puts into what tenant's ids map to, those it lacks: from kept
// (nil: nothing is kept), and the rest from one load, which kept then
// keeps.
func fill[R, V any](kept *lru.Cache[tenantID, V], tenant int, ids []int, into map[int]V,
	load func(missing []int) ([]R, error), value func(R) (int, V)) error {
	var missing []int
	for _, id := range uniq(ids) {
		if _, ok := into[id]; ok {
			continue
		}
		if kept != nil {
			if v, ok := kept.Get(tenantID{tenant, id}); ok {
				into[id] = v
				continue
			}
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return nil
	}
	rows, err := load(missing)
	if err != nil {
		return err
	}
	for _, r := range rows {
		id, v := value(r)
		into[id] = v
		if kept != nil {
			kept.Add(tenantID{tenant, id}, v)
		}
	}
	return nil
}
