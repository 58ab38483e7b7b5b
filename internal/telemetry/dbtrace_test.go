package telemetry_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	_ "modernc.org/sqlite"

	"github.com/taskwire/taskwire/internal/telemetry"
)

// TestTraceDriverTransactions: statements and a transaction's begin,
// commit and rollback run under a recording span become its client spans;
// outside any span they run untraced.
func TestTraceDriverTransactions(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel := newTelemetry(t, telemetry.Config{SpanProcessor: rec})
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	drv := tel.TraceDriver(entsql.OpenDB(dialect.SQLite, db))

	bg := context.Background()
	if err := drv.Exec(bg, "CREATE TABLE t (x INTEGER)", []any{}, nil); err != nil {
		t.Fatal(err)
	}
	// The call's span comes from a provider of the test's: the driver
	// traces under any span that records.
	ctx, call := sdktrace.NewTracerProvider().Tracer("test").Start(bg, "call")
	tx, err := drv.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Exec(ctx, "INSERT INTO t (x) VALUES (?)", []any{1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx, err = drv.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	call.End()

	var got []string
	for _, s := range rec.Ended() {
		got = append(got, s.Name())
		if s.Parent().SpanID() != call.SpanContext().SpanID() {
			t.Errorf("span %s parent = %s, want the call's %s", s.Name(), s.Parent().SpanID(), call.SpanContext().SpanID())
		}
	}
	want := []string{"BEGIN", "INSERT", "COMMIT", "BEGIN", "ROLLBACK"}
	if !slices.Equal(got, want) {
		t.Errorf("spans (-want +got):\n%s", cmp.Diff(want, got))
	}
}
