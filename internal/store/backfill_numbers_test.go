package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/contextnote"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestMigrateFromVersion1 migrates a database as version 1 left it: two
// tenants whose comments and notes were made in turns (ids from one
// sequence), their activity naming comments and notes by those ids. After
// the migration each tenant's comments and notes are numbered 1, 2, … in
// the order they were made, the activity names them by number, new ones
// go on from there, and members keep their ids.
func TestMigrateFromVersion1(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			dsn := storetest.DSN(t, b)
			v1 := seedVersion1(t, b, dsn)
			if from, err := store.Migrate(context.Background(), dsn, quiet); from != 1 || err != nil {
				t.Fatalf("Migrate(version 1) = %d, %v; want from 1", from, err)
			}
			client, err := store.Open(context.Background(), dsn, quiet)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			v1.check(t, client)
		})
	}
}

// version1 is what seedVersion1 wrote: comment and note ids by tenant, in
// the order they were made, and the members' ids.
type version1 struct {
	tenants  map[string]int
	comments map[string][]int
	notes    map[string][]int
	members  map[string]int
}

// seedVersion1 writes two tenants' comments and notes in turns, then
// turns the database into what version 1 kept: no numbers, no counters,
// activity naming ids, schema version 1.
func seedVersion1(t *testing.T, b storetest.Backend, dsn string) *version1 {
	t.Helper()
	client, err := store.Open(context.Background(), dsn, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	v := &version1{tenants: map[string]int{}, comments: map[string][]int{}, notes: map[string][]int{}, members: map[string]int{}}
	type world struct {
		ctx           context.Context
		member, board int
		task          int
	}
	worlds := map[string]world{}
	for _, slug := range []string{"acme", "globex"} {
		tn := client.Tenant.Create().SetSlug(slug).SetName(slug).SaveX(system)
		ctx := tenantscope.NewContext(context.Background(), tn.ID)
		m := client.Member.Create().SetTenantID(tn.ID).SetHandle("ada").SetDisplayName("Ada").
			SetKind(member.KindHuman).SetRole(member.RoleOwner).SaveX(ctx)
		bd := client.Board.Create().SetTenantID(tn.ID).SetSlug("main").SetName("Main").SaveX(ctx)
		tk := client.Task.Create().SetTenantID(tn.ID).SetBoardID(bd.ID).SetNumber(1).SetTitle("t").SetCreatedByID(m.ID).SaveX(ctx)
		v.tenants[slug], v.members[slug] = tn.ID, m.ID
		worlds[slug] = world{ctx, m.ID, bd.ID, tk.ID}
	}
	for i, slug := range []string{"acme", "globex", "acme", "acme", "globex"} {
		w := worlds[slug]
		c := client.Comment.Create().SetTenantID(v.tenants[slug]).SetTaskID(w.task).SetAuthorID(w.member).SetBody(fmt.Sprint("c", i)).SaveX(w.ctx)
		client.Activity.Create().SetTenantID(v.tenants[slug]).SetActorID(w.member).SetActorKind(activity.ActorKindHuman).
			SetTaskID(w.task).SetAction("comment.added").SetDetail(map[string]any{"ref": "T-1", "comment_id": c.ID}).SaveX(w.ctx)
		v.comments[slug] = append(v.comments[slug], c.ID)
	}
	for i, slug := range []string{"globex", "acme", "globex"} {
		w := worlds[slug]
		n := client.ContextNote.Create().SetTenantID(v.tenants[slug]).SetBoardID(w.board).SetAuthorID(w.member).SetBody(fmt.Sprint("n", i)).SaveX(w.ctx)
		client.Activity.Create().SetTenantID(v.tenants[slug]).SetActorID(w.member).SetActorKind(activity.ActorKindHuman).
			SetAction("context.added").SetDetail(map[string]any{"board": "main", "note_id": n.ID}).SaveX(w.ctx)
		v.notes[slug] = append(v.notes[slug], n.ID)
	}
	db := rawDB(t, b, dsn)
	for _, stmt := range []string{
		`DROP INDEX comment_tenant_id_number`,
		`ALTER TABLE comments DROP COLUMN number`,
		`DROP INDEX contextnote_tenant_id_number`,
		`ALTER TABLE context_notes DROP COLUMN number`,
		`ALTER TABLE tenants DROP COLUMN comment_seq`,
		`ALTER TABLE tenants DROP COLUMN note_seq`,
		`UPDATE taskwire_schema SET version = 1`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return v
}

func rawDB(t *testing.T, b storetest.Backend, dsn string) *sql.DB {
	t.Helper()
	driver, name := "pgx", dsn
	if b == storetest.SQLite {
		driver, name = "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (v *version1) check(t *testing.T, client *ent.Client) {
	t.Helper()
	for slug, tid := range v.tenants {
		ctx := tenantscope.NewContext(context.Background(), tid)
		numbers := func(ids []int, number func(id int) int) []int {
			var out []int
			for _, id := range ids {
				out = append(out, number(id))
			}
			return out
		}
		gotComments := numbers(v.comments[slug], func(id int) int { return client.Comment.GetX(ctx, id).Number })
		gotNotes := numbers(v.notes[slug], func(id int) int { return client.ContextNote.GetX(ctx, id).Number })
		if want := seq(len(v.comments[slug])); !cmp.Equal(gotComments, want) {
			t.Errorf("%s's comments numbered %v, want %v", slug, gotComments, want)
		}
		if want := seq(len(v.notes[slug])); !cmp.Equal(gotNotes, want) {
			t.Errorf("%s's notes numbered %v, want %v", slug, gotNotes, want)
		}
		var named []string
		for _, a := range client.Activity.Query().Where(activity.TenantID(tid)).Order(ent.Asc(activity.FieldID)).AllX(ctx) {
			b, _ := json.Marshal(a.Detail)
			named = append(named, string(b))
		}
		var want []string
		for i := range v.comments[slug] {
			want = append(want, fmt.Sprintf(`{"comment":%d,"ref":"T-1"}`, i+1))
		}
		for i := range v.notes[slug] {
			want = append(want, fmt.Sprintf(`{"board":"main","note":%d}`, i+1))
		}
		if diff := cmp.Diff(want, named); diff != "" {
			t.Errorf("%s's activity after the migration (-want +got):\n%s", slug, diff)
		}
		m := client.Member.Query().Where(member.TenantID(tid)).OnlyX(ctx)
		if m.ID != v.members[slug] {
			t.Errorf("%s's member has id %d after the migration, want %d as before", slug, m.ID, v.members[slug])
		}
		task := client.Comment.Query().Where(comment.TenantID(tid)).FirstX(ctx).TaskID
		c := client.Comment.Create().SetTenantID(tid).SetTaskID(task).SetAuthorID(m.ID).SetBody("new").SaveX(ctx)
		n := client.ContextNote.Create().SetTenantID(tid).SetBoardID(client.ContextNote.Query().Where(contextnote.TenantID(tid)).FirstX(ctx).BoardID).
			SetAuthorID(m.ID).SetBody("new").SaveX(ctx)
		if c.Number != len(v.comments[slug])+1 || n.Number != len(v.notes[slug])+1 {
			t.Errorf("%s's next comment and note are numbered %d and %d, want %d and %d", slug, c.Number, n.Number, len(v.comments[slug])+1, len(v.notes[slug])+1)
		}
		tn := client.Tenant.Query().Where(tenant.ID(tid)).OnlyX(system)
		if tn.CommentSeq != c.Number || tn.NoteSeq != n.Number {
			t.Errorf("%s's counters = %d, %d; want %d, %d", slug, tn.CommentSeq, tn.NoteSeq, c.Number, n.Number)
		}
	}
}

// seq is 1, 2, … n.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}
