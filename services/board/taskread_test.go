package board

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// readTask must return exactly what the query builder's read returns, for
// a task with every field set and for one with defaults, with its work
// state, and nothing of another tenant.
func TestReadTaskMatchesQueryBuilder(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		bg := context.Background()
		acme, err := tenancy.Bootstrap(bg, c, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		globex := c.Tenant.Create().SetSlug("globex").SetName("Globex").SaveX(bg)
		gina, err := tenancy.AddMember(bg, c, "globex", tenancy.MemberSpec{Handle: "gina"})
		if err != nil {
			t.Fatal(err)
		}
		gctx := tenantscope.NewContext(bg, globex.ID)
		gmain := c.Board.Create().SetTenantID(globex.ID).SetSlug("main").SetName("Main").SaveX(gctx)
		ctx := tenantscope.NewContext(bg, acme.Tenant.ID)
		alice := acme.Owner.ID
		at := time.Date(2026, 3, 4, 5, 6, 7, 891000000, time.UTC)
		full := c.Task.Create().SetTenantID(acme.Tenant.ID).SetBoardID(acme.Board.ID).SetNumber(1).
			SetTitle("Raise the timeout").SetNote("to 60 s, « ÉCOLE »").SetLane(task.LaneDoing).
			SetKind(task.KindBug).SetSize(task.SizeXl).SetAssigneeIds([]int{alice}).SetVersion(7).
			SetCreatedByID(alice).SetCreatedAt(at).SetUpdatedAt(at.Add(time.Hour)).
			SetDeletedAt(at.Add(2 * time.Hour)).SetLabels([]string{"api", "ops"}).SetProject("edge").
			SetPosition(3).SetFlagged(true).SetFlagReason("needs a person").SetTextAuthorIds([]int{alice}).
			SaveX(ctx)
		c.WorkItem.Create().SetTenantID(acme.Tenant.ID).SetTaskID(full.ID).SetBoardID(acme.Board.ID).
			SetPlan("Raise it").SetApprovedByID(alice).SetLeaseMinutes(30).SetMaxClaims(3).
			SetState(workitem.StateClaimed).SaveX(ctx)
		c.Task.Create().SetTenantID(acme.Tenant.ID).SetBoardID(acme.Board.ID).SetNumber(2).
			SetTitle("Defaults").SetCreatedByID(alice).SaveX(ctx)
		// globex has a T-1 of its own, with a work item, and a T-3 acme lacks.
		for _, n := range []int{1, 3} {
			g := c.Task.Create().SetTenantID(globex.ID).SetBoardID(gmain.ID).SetNumber(n).
				SetTitle("Globex's").SetCreatedByID(gina.ID).SaveX(gctx)
			c.WorkItem.Create().SetTenantID(globex.ID).SetTaskID(g.ID).SetBoardID(gmain.ID).
				SetPlan("Theirs").SetApprovedByID(gina.ID).SetLeaseMinutes(30).SetMaxClaims(3).
				SetState(workitem.StateCompleted).SaveX(gctx)
		}

		// Every field of the first task is set, so that a column the
		// hand-run read would fail to fill shows in the comparison.
		v := reflect.ValueOf(*full)
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Name != "Edges" && v.Field(i).IsZero() {
				t.Errorf("the fixture leaves Task.%s zero: set it, so that this test compares it", f.Name)
			}
		}

		a := actor{tenant: acme.Tenant, member: acme.Owner}
		for _, tc := range []struct {
			ref, work string
		}{{"T-1", "claimed"}, {" t-2 ", ""}} {
			got, work, err := readTask(ctx, c, a, tc.ref)
			if err != nil {
				t.Fatalf("readTask(%q) = %v", tc.ref, err)
			}
			want, err := findAnyTask(ctx, c, a, tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(ent.Task{}), cmpopts.IgnoreFields(ent.Task{}, "Edges")); diff != "" {
				t.Errorf("readTask(%q) (-query builder +read):\n%s", tc.ref, diff)
			}
			if work != tc.work {
				t.Errorf("readTask(%q) work state = %q, want %q", tc.ref, work, tc.work)
			}
		}

		if _, _, err := readTask(ctx, c, a, "T-3"); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("readTask(T-3), a number only globex has = %v, want not found", err)
		}
		if _, _, err := readTask(gctx, c, a, "T-1"); !errors.Is(err, privacy.Deny) {
			t.Errorf("readTask for acme from a context scoped to globex = %v, want denied", err)
		}
		if _, _, err := readTask(bg, c, a, "T-1"); !errors.Is(err, privacy.Deny) {
			t.Errorf("readTask from a context scoped to no tenant = %v, want denied", err)
		}
	})
}

func TestParseRef(t *testing.T) {
	for ref, want := range map[string]int{
		"T-1": 1, "t-12": 12, "  T-7\n": 7, "T-999999999": 999999999,
		"": 0, "T-": 0, "T-0": 0, "T-012": 0, "T-1000000000": 0, "T-1a": 0, "T-+1": 0,
		"X-1": 0, "T1": 0, "T--1": 0, "T-1 2": 0, "T-١": 0,
	} {
		got, err := parseRef(ref)
		if want == 0 {
			if domainerr.KindOf(err) != domainerr.Invalid {
				t.Errorf("parseRef(%q) = %d, %v; want invalid", ref, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("parseRef(%q) = %d, %v; want %d", ref, got, err, want)
		}
	}
}
