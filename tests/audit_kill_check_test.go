package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/store"
)

// checkAudit reads the database after the kill: every acknowledged call
// of load has its audit row, the creates that committed (acknowledged or
// not) have one ok row each, and no row holds the secret of the titles.
func checkAudit(t *testing.T, dsn string, load *auditLoad) {
	t.Helper()
	db, err := store.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	tasks, err := db.Client.Task.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Client.AuditEvent.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]int{}
	for _, tk := range tasks {
		titles[tk.Title]++
	}
	var faults []string
	fault := func(format string, args ...any) { faults = append(faults, fmt.Sprintf(format, args...)) }
	for _, title := range load.created {
		if titles[title] != 1 {
			fault("acknowledged create of %q: %d tasks with that title, want 1", title, titles[title])
		}
	}
	created, refused, read := 0, 0, map[string]int{}
	for _, r := range rows {
		switch {
		case r.Tool == "tasks_create" && r.Outcome == "ok":
			created++
		case r.Tool == "tasks_create" && r.Outcome == "FailedPrecondition":
			refused++
		case r.Tool == "tasks_get" && len(r.Targets) == 1:
			read[strings.TrimPrefix(r.Targets[0], "ref=")]++
		}
		if row := fmt.Sprintf("%+v", *r); strings.Contains(strings.ToLower(row), strings.ToLower(auditSecret)) {
			fault("audit row %d holds task text: %s", r.ID, row)
		}
	}
	if created != len(tasks) {
		fault("%d tasks but %d audit rows of tasks_create ok: want one row for every committed create", len(tasks), created)
	}
	if refused < load.refusals {
		fault("%d duplicate refusals acknowledged but %d audit rows of them", load.refusals, refused)
	}
	for _, ref := range load.reads {
		if read[ref] != 1 {
			fault("acknowledged tasks_get of %s: %d audit rows, want 1", ref, read[ref])
		}
	}
	if len(faults) > 0 {
		slices.Sort(faults)
		t.Errorf("%d faults in the audit log (%d rows, %d tasks), e.g.:\n  %s",
			len(faults), len(rows), len(tasks), strings.Join(faults[:min(len(faults), 10)], "\n  "))
	}
}
