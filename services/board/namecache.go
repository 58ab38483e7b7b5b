package board

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/taskwire/taskwire/ent"
	entboard "github.com/taskwire/taskwire/ent/board"
	"github.com/taskwire/taskwire/ent/member"
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
	var missing []int
	for _, id := range uniq(ids) {
		if c != nil {
			if slug, ok := c.boards.Get(tenantID{a.tenant.ID, id}); ok {
				n.boards[id] = slug
				continue
			}
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return nil
	}
	bs, err := cl.Board.Query().Where(entboard.TenantID(a.tenant.ID), entboard.IDIn(missing...)).
		Select(entboard.FieldSlug).All(ctx)
	if err != nil {
		return err
	}
	for _, b := range bs {
		n.boards[b.ID] = b.Slug
		if c != nil {
			c.boards.Add(tenantID{a.tenant.ID, b.ID}, b.Slug)
		}
	}
	return nil
}

// addMembers puts the handles and kinds of ids into n.members, reading
// those neither in n nor remembered in one query.
func (c *nameCache) addMembers(ctx context.Context, cl *ent.Client, a actor, n names, ids []int) error {
	var missing []int
	for _, id := range uniq(ids) {
		if _, ok := n.members[id]; ok {
			continue
		}
		if c != nil {
			if m, ok := c.members.Get(tenantID{a.tenant.ID, id}); ok {
				n.members[id] = m
				continue
			}
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return nil
	}
	// Only what names shows: handles and kinds.
	ms, err := cl.Member.Query().Where(member.TenantID(a.tenant.ID), member.IDIn(missing...)).
		Select(member.FieldHandle, member.FieldKind).All(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		n.members[m.ID] = m
		if c != nil {
			c.members.Add(tenantID{a.tenant.ID, m.ID}, &ent.Member{ID: m.ID, Handle: m.Handle, Kind: m.Kind})
		}
	}
	return nil
}
