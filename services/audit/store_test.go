package audit_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/auditevent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/audit"
)

func TestRecordAndList(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		resolved := e.call("acme/alice", 0, "MoveTask", audit.OutcomeOK)
		resolved.Tool = "tasks_move"
		resolved.TenantID, resolved.Member, resolved.Kind = e.tenants["acme"], "alice", audit.KindHuman
		resolved.SessionLabel, resolved.TraceID = "laptop claude", "4bf92f3577b34da6a3ce929d0e0e4736"
		refused := e.call("acme/bot", 1, "CreateTask", audit.OutcomeRefused) // to be resolved by Record
		gone := e.call("acme/alice", 2, "GetTask", "NotFound")
		gone.MemberID = 9999 // a member id the tenant does not have
		operator := audit.Event{OccurredAt: e.base.Add(3 * time.Second), Tenant: "acme", Kind: audit.KindOperator,
			Method: "/taskwire.admin.v1.AdminService/AddMember", Targets: []string{"tenant=acme", "handle=carol"}, Outcome: audit.OutcomeOK}
		e.record(t, resolved, refused, gone, operator)

		got, next := e.list(t, "acme", audit.Filter{}, "", 0)
		if next != "" {
			t.Errorf("next cursor = %q, want none", next)
		}
		want := []audit.Event{
			{OccurredAt: operator.OccurredAt, Tenant: "acme", Kind: "operator", Method: operator.Method,
				Targets: operator.Targets, Outcome: "ok"},
			{OccurredAt: gone.OccurredAt, Tenant: "acme", MemberID: 9999, TokenID: "jti-alice", Method: gone.Method, Tool: "GetTask",
				Targets: []string{"ref=T-2"}, Outcome: "NotFound", Error: "no GetTask", Duration: time.Millisecond},
			{OccurredAt: refused.OccurredAt, Tenant: "acme", MemberID: e.members["acme/bot"], Member: "bot", Kind: "assistant", Sponsor: "alice",
				TokenID: "jti-bot", Method: refused.Method, Tool: "CreateTask", Targets: []string{"ref=T-1"}, Outcome: "refused",
				Error: "no CreateTask", Duration: time.Millisecond},
			{OccurredAt: resolved.OccurredAt, Tenant: "acme", MemberID: e.members["acme/alice"], Member: "alice", Kind: "human",
				TokenID: "jti-alice", SessionLabel: "laptop claude", Method: resolved.Method, Tool: "tasks_move",
				Targets: []string{"ref=T-0"}, Outcome: "ok", TraceID: resolved.TraceID, Duration: time.Millisecond},
		}
		ignore := cmpopts.IgnoreFields(audit.Event{}, "ID", "TenantID")
		if diff := cmp.Diff(want, got, ignore, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("List(acme) (-want +got):\n%s", diff)
		}
		for _, ev := range got {
			if ev.ID == 0 || ev.TenantID != e.tenants["acme"] {
				t.Errorf("event %s: id %d tenant %d, want an id and tenant %d", ev.Method, ev.ID, ev.TenantID, e.tenants["acme"])
			}
		}
		if got, _ := e.list(t, "globex", audit.Filter{}, "", 0); len(got) != 0 {
			t.Errorf("List(globex) = %d events, want none of acme's", len(got))
		}

		err := e.store.Record(context.Background(), e.call("nowhere/alice", 9, "GetTask", "ok"))
		if domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("Record in an unknown tenant = %v, want NotFound", err)
		}
		if _, _, err := e.store.List(context.Background(), "nowhere", audit.Filter{}, "", 0); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("List(nowhere) = %v, want NotFound", err)
		}
	})
}

// TestAppendOnly: the trail cannot be rewritten, even by code that
// forgets to ask.
func TestAppendOnly(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.record(t, e.call("acme/alice", 0, "GetTask", audit.OutcomeOK))
		ctx := tenantscope.NewContext(context.Background(), e.tenants["acme"])
		n, err := client.AuditEvent.Update().Where(auditevent.TenantID(e.tenants["acme"])).Save(ctx)
		if err == nil || !strings.Contains(err.Error(), "never changed") {
			t.Errorf("updating audit events = %d rows, %v; want a denial", n, err)
		}
	})
}

func TestListFilters(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.record(t,
			e.call("acme/alice", 0, "tasks_get", audit.OutcomeOK),
			e.call("acme/bot", 1, "tasks_move", audit.OutcomeRefused),
			e.call("acme/bot", 2, "tasks_get", "NotFound"),
			e.call("acme/vic", 3, "tasks_create", audit.OutcomeRefused),
			e.call("acme/alice", 4, "tasks_update", "FailedPrecondition"),
			e.call("globex/alice", 5, "tasks_get", audit.OutcomeOK),
		)
		refs := func(evs []audit.Event) []string {
			var out []string
			for _, ev := range evs {
				out = append(out, ev.Targets[0])
			}
			return out
		}
		tests := []struct {
			f    audit.Filter
			want []string
		}{
			{audit.Filter{}, []string{"ref=T-4", "ref=T-3", "ref=T-2", "ref=T-1", "ref=T-0"}},
			{audit.Filter{Member: "bot"}, []string{"ref=T-2", "ref=T-1"}},
			{audit.Filter{Tool: "tasks_get"}, []string{"ref=T-2", "ref=T-0"}},
			{audit.Filter{Tool: "/taskwire.v1.BoardService/tasks_move"}, []string{"ref=T-1"}},
			{audit.Filter{Outcome: "ok"}, []string{"ref=T-0"}},
			{audit.Filter{Outcome: "refused"}, []string{"ref=T-3", "ref=T-1"}},
			{audit.Filter{Outcome: "error"}, []string{"ref=T-4", "ref=T-2"}},
			{audit.Filter{Outcome: "notfound"}, []string{"ref=T-2"}},
			{audit.Filter{Since: e.base.Add(time.Second), Until: e.base.Add(3 * time.Second)}, []string{"ref=T-2", "ref=T-1"}},
			{audit.Filter{Member: "alice", Outcome: "error"}, []string{"ref=T-4"}},
			{audit.Filter{Member: "vic", Tool: "tasks_get"}, nil},
		}
		for _, tt := range tests {
			got, _ := e.list(t, "acme", tt.f, "", 0)
			if diff := cmp.Diff(tt.want, refs(got)); diff != "" {
				t.Errorf("List(acme, %+v) (-want +got):\n%s", tt.f, diff)
			}
		}

		bad := []struct {
			f     audit.Filter
			limit int
			kind  domainerr.Kind
			says  string
		}{
			{audit.Filter{Outcome: "fine"}, 0, domainerr.Invalid, "outcome"},
			{audit.Filter{Member: "nobody"}, 0, domainerr.NotFound, "nobody"},
			{audit.Filter{}, 101, domainerr.Invalid, "limit 101"},
			{audit.Filter{}, -1, domainerr.Invalid, "limit -1"},
			{audit.Filter{Since: e.base, Until: e.base}, 0, domainerr.Invalid, "since"},
			{audit.Filter{Tool: strings.Repeat("x", 201)}, 0, domainerr.Invalid, "tool"},
		}
		for _, tt := range bad {
			_, _, err := e.store.List(context.Background(), "acme", tt.f, "", tt.limit)
			if domainerr.KindOf(err) != tt.kind || !strings.Contains(domainerr.Message(err), tt.says) {
				t.Errorf("List(acme, %+v, limit %d) = %v (%s), want %v saying %q", tt.f, tt.limit, err, kindOf(err), tt.kind, tt.says)
			}
		}
	})
}

// TestPagination walks the log a page at a time, with events that share a
// timestamp across page ends, and checks that every event comes once, in
// order.
func TestPagination(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		var evs []audit.Event
		for i := range 60 {
			evs = append(evs, e.call("acme/alice", i/4, "tasks_get", audit.OutcomeOK)) // four per second
		}
		e.record(t, evs...)

		var all []audit.Event
		var sizes []int
		cursor := ""
		for {
			page, next := e.list(t, "acme", audit.Filter{Member: "alice"}, cursor, 0)
			all = append(all, page...)
			sizes = append(sizes, len(page))
			if next == "" {
				break
			}
			cursor = next
		}
		if !slices.Equal(sizes, []int{25, 25, 10}) {
			t.Errorf("page sizes = %v, want [25 25 10]", sizes)
		}
		seen := map[int]bool{}
		for i, ev := range all {
			if seen[ev.ID] {
				t.Errorf("event %d listed twice", ev.ID)
			}
			seen[ev.ID] = true
			if i > 0 {
				prev := all[i-1]
				if ev.OccurredAt.After(prev.OccurredAt) || (ev.OccurredAt.Equal(prev.OccurredAt) && ev.ID > prev.ID) {
					t.Errorf("event %d (%v) listed after %d (%v): not newest first", ev.ID, ev.OccurredAt, prev.ID, prev.OccurredAt)
				}
			}
		}
		if len(seen) != 60 {
			t.Errorf("listed %d events, want 60", len(seen))
		}

		page, next := e.list(t, "acme", audit.Filter{}, "", 100)
		if len(page) != 60 || next != "" {
			t.Errorf("List(limit 100) = %d events, cursor %q; want all 60 and no cursor", len(page), next)
		}
	})
}

// TestCursorsAreSealed: a cursor works for the tenant and filter it was
// handed out for, under the key it was made with, unaltered; anything
// else is Invalid.
func TestCursorsAreSealed(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		for i := range 5 {
			e.record(t, e.call("acme/alice", i, "tasks_get", audit.OutcomeOK), e.call("globex/alice", i, "tasks_get", audit.OutcomeOK))
		}
		_, cursor := e.list(t, "acme", audit.Filter{Tool: "tasks_get"}, "", 2)
		if cursor == "" {
			t.Fatal("no next cursor after 2 of 5 events")
		}
		if page, _ := e.list(t, "acme", audit.Filter{Tool: "tasks_get"}, cursor, 2); len(page) != 2 {
			t.Errorf("second page = %d events, want 2", len(page))
		}
		flipped := []byte(cursor)
		flipped[3] ^= 1
		other := newStore(t, client, []byte("another key, another deployment"))
		tests := []struct {
			name   string
			store  *audit.Store
			tenant string
			f      audit.Filter
			cursor string
		}{
			{"another tenant's", e.store, "globex", audit.Filter{Tool: "tasks_get"}, cursor},
			{"another filter's", e.store, "acme", audit.Filter{Tool: "tasks_list"}, cursor},
			{"altered", e.store, "acme", audit.Filter{Tool: "tasks_get"}, string(flipped)},
			{"made with another key", other, "acme", audit.Filter{Tool: "tasks_get"}, cursor},
			{"truncated", e.store, "acme", audit.Filter{Tool: "tasks_get"}, cursor[:len(cursor)-2]},
			{"made up", e.store, "acme", audit.Filter{Tool: "tasks_get"}, "1.2.3"},
		}
		for _, tt := range tests {
			_, _, err := tt.store.List(context.Background(), tt.tenant, tt.f, tt.cursor, 2)
			if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(domainerr.Message(err), "cursor is not valid") {
				t.Errorf("%s cursor: List = %v, want Invalid saying the cursor is not valid", tt.name, err)
			}
		}
	})
}

func TestConfig(t *testing.T) {
	if _, err := audit.New(audit.Config{CursorKey: testKey}); err == nil {
		t.Error("New without a client succeeded")
	}
	client := storetest.Open(t, storetest.SQLite)
	if _, err := audit.New(audit.Config{Client: client, CursorKey: []byte("short")}); err == nil {
		t.Error("New with a 5-byte cursor key succeeded")
	}
}

// TestRecordWritesAsEnt: Record and RecordAll build their rows
// themselves; each must be the very row ent's create writes for the event,
// for an event with every field set and for one with only what an event
// needs; and they refuse what ent refuses.
func TestRecordWritesAsEnt(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		full := e.call("acme/alice", 7, "tasks_move", audit.OutcomeRefused)
		full.Member, full.Kind, full.Sponsor = "alice", audit.KindAssistant, "bob"
		full.SessionLabel, full.TraceID = "laptop", "4bf92f3577b34da6a3ce929d0e0e4736"
		full.Targets = []string{"ref=T-7", "lane=done"}
		full.OccurredAt = full.OccurredAt.Add(123456789 * time.Nanosecond)
		bare := audit.Event{Tenant: "acme", Method: "/taskwire.v1.BoardService/ListTasks", Outcome: audit.OutcomeOK,
			OccurredAt: e.base}
		ctx := tenantscope.NewContext(context.Background(), e.tenants["acme"])
		for _, ev := range []audit.Event{full, bare} {
			entCreate(client, e.tenants["acme"], ev).ExecX(ctx)
			if err := e.store.Record(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.RecordAll(context.Background(), []audit.Event{ev}); err != nil {
				t.Fatal(err)
			}
		}
		rows := client.AuditEvent.Query().Order(ent.Asc(auditevent.FieldID)).AllX(ctx)
		if len(rows) != 6 {
			t.Fatalf("%d rows after writing 2 events three ways, want 6", len(rows))
		}
		v := reflect.ValueOf(*rows[0])
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Name != "Edges" && v.Field(i).IsZero() {
				t.Errorf("the full event leaves AuditEvent.%s zero: set it, so that this test compares it", f.Name)
			}
		}
		for i := 0; i < 6; i += 3 {
			for j, how := range []string{"Record", "RecordAll"} {
				if diff := cmp.Diff(rows[i], rows[i+1+j], cmpopts.IgnoreUnexported(ent.AuditEvent{}), cmpopts.IgnoreFields(ent.AuditEvent{}, "ID", "Edges")); diff != "" {
					t.Errorf("row of %s differs from ent's create (-ent +%s):\n%s", how, how, diff)
				}
			}
		}

		for name, ev := range map[string]audit.Event{
			"no method":  {Tenant: "acme", Outcome: audit.OutcomeOK},
			"no outcome": {Tenant: "acme", Method: "/taskwire.v1.BoardService/ListTasks"},
			"bad kind":   {Tenant: "acme", Method: "/taskwire.v1.BoardService/ListTasks", Outcome: audit.OutcomeOK, Kind: "robot"},
		} {
			if entCreate(client, e.tenants["acme"], ev).Exec(ctx) == nil {
				t.Errorf("ent creates an event with %s: the refusal below checks nothing", name)
			}
			if _, err := e.store.RecordAll(context.Background(), []audit.Event{ev, full}); domainerr.KindOf(err) != domainerr.Invalid {
				t.Errorf("RecordAll of an event with %s = %v, want Invalid", name, err)
			}
			if err := e.store.Record(context.Background(), ev); domainerr.KindOf(err) != domainerr.Invalid {
				t.Errorf("Record of an event with %s = %v, want Invalid", name, err)
			}
		}
		if n := client.AuditEvent.Query().CountX(ctx); n != 6 {
			t.Errorf("%d rows after refused writes, want the 6 from before", n)
		}
	})
}

// entCreate is ent's create of ev's row in tenant tid: what the audit
// log's own insert must write.
func entCreate(client *ent.Client, tid int, ev audit.Event) *ent.AuditEventCreate {
	c := client.AuditEvent.Create().
		SetTenantID(tid).
		SetOccurredAt(ev.OccurredAt.UTC().Truncate(time.Microsecond)).
		SetMemberHandle(ev.Member).
		SetSponsorHandle(ev.Sponsor).
		SetTokenID(ev.TokenID).
		SetSessionLabel(ev.SessionLabel).
		SetMethod(ev.Method).
		SetTool(ev.Tool).
		SetTargets(ev.Targets).
		SetOutcome(ev.Outcome).
		SetErrorMessage(ev.Error).
		SetTraceID(ev.TraceID).
		SetDurationMs(ev.Duration.Milliseconds())
	if ev.MemberID > 0 {
		c.SetMemberID(ev.MemberID)
	}
	if ev.Kind != "" {
		c.SetMemberKind(auditevent.MemberKind(ev.Kind))
	}
	return c
}

// TestRecordAllLongBatch: a batch longer than one insert writes lands
// whole and in order.
func TestRecordAllLongBatch(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		const n = 150 // 64 + 64 + 16 + 4 + 2 rows
		var batch []audit.Event
		for i := range n {
			batch = append(batch, e.call("acme/alice", i, "tasks_get", audit.OutcomeOK))
		}
		if skipped, err := e.store.RecordAll(context.Background(), batch); err != nil || skipped != 0 {
			t.Fatalf("RecordAll(%d events) = %d skipped, %v", n, skipped, err)
		}
		var refs []string
		for cursor := ""; ; {
			page, next := e.list(t, "acme", audit.Filter{}, cursor, 100)
			for _, ev := range page {
				refs = append(refs, ev.Targets[0])
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		if len(refs) != n {
			t.Fatalf("acme's log holds %d events after RecordAll of %d", len(refs), n)
		}
		for i, ref := range refs { // newest first
			if want := fmt.Sprint("ref=T-", n-1-i); ref != want {
				t.Fatalf("event %d of the log is %s, want %s", i, ref, want)
			}
		}
	})
}

// TestRecordAll: a batch lands as its events would one by one, in each
// tenant's own log, with the member resolved where the worker had not;
// an event of a tenant that does not exist is skipped, not fatal.
func TestRecordAll(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		batch := []audit.Event{
			e.call("acme/alice", 0, "tasks_get", audit.OutcomeOK),
			e.call("globex/alice", 1, "tasks_get", audit.OutcomeOK),
			e.call("nowhere/alice", 2, "tasks_get", audit.OutcomeOK),
			e.call("acme/bot", 3, "tasks_move", audit.OutcomeRefused),
		}
		skipped, err := e.store.RecordAll(context.Background(), batch)
		if err != nil || skipped != 1 {
			t.Fatalf("RecordAll = %d skipped, %v; want 1 skipped (nowhere), nil", skipped, err)
		}
		got, _ := e.list(t, "acme", audit.Filter{}, "", 0)
		var seen []string
		for _, ev := range got {
			seen = append(seen, ev.Member+" "+ev.Tool+" "+ev.Targets[0]+" "+ev.Sponsor)
		}
		want := []string{"bot tasks_move ref=T-3 alice", "alice tasks_get ref=T-0 "}
		if !slices.Equal(seen, want) {
			t.Errorf("acme's log after RecordAll = %q, want %q", seen, want)
		}
		if got, _ := e.list(t, "globex", audit.Filter{}, "", 0); len(got) != 1 || got[0].Targets[0] != "ref=T-1" {
			t.Errorf("globex's log after RecordAll = %v, want its one event", got)
		}
	})
}

// TestRecordTx: an event recorded in a write's transaction is in the log
// when the transaction commits, and not when it rolls back; a tenant that
// does not exist is NotFound.
func TestRecordTx(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		committed, rolledBack := e.call("acme/bot", 1, "tasks_create", audit.OutcomeOK), e.call("acme/bot", 2, "tasks_create", audit.OutcomeOK)
		if err := store.WithTx(ctx, client, func(tx *ent.Tx) error { return e.store.RecordTx(ctx, tx, committed) }); err != nil {
			t.Fatalf("RecordTx in a committed transaction = %v", err)
		}
		errBoom := errors.New("the write failed")
		err := store.WithTx(ctx, client, func(tx *ent.Tx) error {
			if err := e.store.RecordTx(ctx, tx, rolledBack); err != nil {
				return err
			}
			return errBoom
		})
		if !errors.Is(err, errBoom) {
			t.Fatalf("rolled-back transaction = %v", err)
		}
		got, _ := e.list(t, "acme", audit.Filter{}, "", 0)
		if len(got) != 1 || got[0].Targets[0] != "ref=T-1" || got[0].Member != "bot" || got[0].Sponsor != "alice" {
			t.Errorf("acme's log = %+v, want the committed event alone, its member resolved", got)
		}
		err = store.WithTx(ctx, client, func(tx *ent.Tx) error {
			return e.store.RecordTx(ctx, tx, e.call("nowhere/alice", 3, "tasks_get", audit.OutcomeOK))
		})
		if kindOf(err) != "not found" {
			t.Errorf("RecordTx in a tenant that does not exist = %v, want NotFound", err)
		}
	})
}
