package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent/auditevent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
)

// The audit log takes a row for every call a worker answers, so its
// insert is built once per dialect and row count instead of through ent's
// create builders, whose per-row specs, hooks and statement text cost more
// than the rows themselves. The values are those an ent create writes (a
// test compares the two), checked by ent's generated validators. It bypasses
// ent's privacy policy, so it applies that policy's rule itself: rows of
// the context's tenant only.

// insertColumns are the columns written: all but the id.
var insertColumns = slices.DeleteFunc(slices.Clone(auditevent.Columns),
	func(c string) bool { return c == auditevent.FieldID })

// columnValues give each insert column's value for an event resolved to
// its tenant, in insertColumns order; a column without one fails at start.
var columnValues = func() []func(tid int, e *Event) any {
	byColumn := map[string]func(tid int, e *Event) any{
		auditevent.FieldTenantID:      func(tid int, _ *Event) any { return tid },
		auditevent.FieldOccurredAt:    func(_ int, e *Event) any { return timeOf(e.OccurredAt) },
		auditevent.FieldMemberID:      func(_ int, e *Event) any { return nilUnless(e.MemberID > 0, e.MemberID) },
		auditevent.FieldMemberHandle:  func(_ int, e *Event) any { return e.Member },
		auditevent.FieldMemberKind:    func(_ int, e *Event) any { return nilUnless(e.Kind != "", e.Kind) },
		auditevent.FieldSponsorHandle: func(_ int, e *Event) any { return e.Sponsor },
		auditevent.FieldTokenID:       func(_ int, e *Event) any { return e.TokenID },
		auditevent.FieldSessionLabel:  func(_ int, e *Event) any { return e.SessionLabel },
		auditevent.FieldMethod:        func(_ int, e *Event) any { return e.Method },
		auditevent.FieldTool:          func(_ int, e *Event) any { return e.Tool },
		auditevent.FieldTargets:       func(_ int, e *Event) any { return jsonOf(e.Targets) },
		auditevent.FieldOutcome:       func(_ int, e *Event) any { return e.Outcome },
		auditevent.FieldErrorMessage:  func(_ int, e *Event) any { return e.Error },
		auditevent.FieldTraceID:       func(_ int, e *Event) any { return e.TraceID },
		auditevent.FieldDurationMs:    func(_ int, e *Event) any { return max(e.Duration.Milliseconds(), 0) },
	}
	out := make([]func(int, *Event) any, len(insertColumns))
	for i, c := range insertColumns {
		if out[i] = byColumn[c]; out[i] == nil {
			panic(fmt.Sprintf("audit: no value for column %s of %s", c, auditevent.Table))
		}
	}
	return out
}()

func nilUnless[T any](ok bool, v T) any {
	if !ok {
		return nil
	}
	return v
}

// jsonOf is v as ent writes a JSON field.
func jsonOf(v []string) any {
	b, _ := json.Marshal(v) // a []string always encodes
	return json.RawMessage(b)
}

// rowOf is e's row, resolved to tenant tid, checked as ent's create checks
// it.
func rowOf(tid int, e *Event) ([]any, error) {
	invalid := func(field string, err error) error {
		return domainerr.New(domainerr.Invalid, "audit event of %q: %s: %v", e.Method, field, err)
	}
	if err := auditevent.MethodValidator(e.Method); err != nil {
		return nil, invalid(auditevent.FieldMethod, err)
	}
	if err := auditevent.OutcomeValidator(e.Outcome); err != nil {
		return nil, invalid(auditevent.FieldOutcome, err)
	}
	if e.Kind != "" {
		if err := auditevent.MemberKindValidator(auditevent.MemberKind(e.Kind)); err != nil {
			return nil, invalid(auditevent.FieldMemberKind, err)
		}
	}
	row := make([]any, len(columnValues))
	for i, v := range columnValues {
		row[i] = v(tid, e)
	}
	return row, nil
}

// insertTexts holds the insert of n rows for a dialect, by insertKey.
var insertTexts sync.Map

type insertKey struct {
	dialect string
	rows    int
}

func insertText(dia string, n int) string {
	key := insertKey{dia, n}
	if q, ok := insertTexts.Load(key); ok {
		return q.(string)
	}
	b := entsql.Dialect(dia).Insert(auditevent.Table).Columns(insertColumns...)
	placeholders := make([]any, len(insertColumns))
	for i := range placeholders {
		placeholders[i] = 0 // not nil, which the builder writes as NULL
	}
	for range n {
		b.Values(placeholders...)
	}
	q, _ := b.Query()
	insertTexts.Store(key, q)
	return q
}

// insertRows writes rows, all of tenant tid, in one statement on drv.
func insertRows(ctx context.Context, drv dialect.Driver, tid int, rows [][]any) error {
	if id, ok := tenantscope.FromContext(ctx); !ok || id != tid {
		return privacy.Denyf("write audit events of tenant %d from a context not scoped to it", tid)
	}
	args := make([]any, 0, len(rows)*len(insertColumns))
	for _, r := range rows {
		args = append(args, r...)
	}
	return drv.Exec(ctx, insertText(drv.Dialect(), len(rows)), args, nil)
}
