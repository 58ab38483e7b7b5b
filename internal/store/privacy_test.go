package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestTenantPrivacy shows the second line of defence: even queries without
// a tenant filter see only the tenant of their context, and work without a
// tenant is denied unless marked as system work.
func TestTenantPrivacy(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		bg := context.Background()
		acme := c.Tenant.Create().SetSlug("acme").SetName("Acme").SaveX(bg)
		globex := c.Tenant.Create().SetSlug("globex").SetName("Globex").SaveX(bg)
		inAcme := tenantscope.NewContext(bg, acme.ID)
		inGlobex := tenantscope.NewContext(bg, globex.ID)
		newMember := func(tenantID int, handle string) *ent.MemberCreate {
			return c.Member.Create().SetTenantID(tenantID).SetHandle(handle).SetDisplayName(handle).
				SetKind(member.KindHuman).SetRole(member.RoleMember)
		}
		alice := newMember(acme.ID, "alice").SaveX(inAcme)
		newMember(globex.ID, "gina").SaveX(inGlobex)

		if _, err := newMember(globex.ID, "mallory").Save(inAcme); !errors.Is(err, privacy.Deny) {
			t.Errorf("create a globex member scoped to acme = %v, want privacy.Deny", err)
		}
		if _, err := newMember(acme.ID, "nobody").Save(bg); !errors.Is(err, privacy.Deny) {
			t.Errorf("create a member without a tenant = %v, want privacy.Deny", err)
		}
		if _, err := c.Member.Query().All(bg); !errors.Is(err, privacy.Deny) {
			t.Errorf("query members without a tenant = %v, want privacy.Deny", err)
		}

		// No tenant filter in the query, yet only acme's rows.
		handles := c.Member.Query().Order(ent.Asc(member.FieldHandle)).Select(member.FieldHandle).StringsX(inAcme)
		if len(handles) != 1 || handles[0] != "alice" {
			t.Errorf("members scoped to acme = %v, want [alice]", handles)
		}
		if _, err := c.Member.Get(inGlobex, alice.ID); !ent.IsNotFound(err) {
			t.Errorf("get acme's alice scoped to globex = %v, want not found", err)
		}
		if _, err := c.Member.UpdateOneID(alice.ID).SetDisplayName("pwned").Save(inGlobex); !ent.IsNotFound(err) {
			t.Errorf("update acme's alice scoped to globex = %v, want not found", err)
		}
		if n, err := c.Member.Delete().Exec(inGlobex); n != 1 || err != nil {
			t.Errorf("delete all members scoped to globex = %d, %v, want 1 (gina only)", n, err)
		}

		system := privacy.DecisionContext(bg, privacy.Allow)
		if n, err := c.Member.Query().Count(system); n != 1 || err != nil {
			t.Errorf("count members as system = %d, %v, want 1 (alice)", n, err)
		}
	})
}
