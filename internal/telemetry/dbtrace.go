package telemetry

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TraceDriver wraps an ent driver so that every statement, and every
// transaction's begin and end, run for a traced call becomes a client span
// under the call's span. It is ent's own seam (dialect.Driver, as
// dialect.DebugDriver uses it), so it needs no library and sees SQLite and
// PostgreSQL alike. Spans carry the statement with its placeholders, never
// its arguments, which hold task text. Statements outside any recording
// span (migrations, background reloads) pass straight through.
func (t *Telemetry) TraceDriver(d dialect.Driver) dialect.Driver {
	return &tracedDriver{Driver: d, tracer: t.tracer, system: dbSystem(d.Dialect())}
}

// dbSystem is the db.system.name of an ent dialect.
func dbSystem(d string) string {
	if d == dialect.Postgres {
		return "postgresql"
	}
	return d
}

type tracedDriver struct {
	dialect.Driver
	tracer trace.Tracer
	system string
}

// traced runs op (a statement, or a transaction's begin or end) under a
// client span when ctx's span records, and straight through otherwise.
// run gets the span's context; query, when not "", is the statement.
func (d *tracedDriver) traced(ctx context.Context, op, query string, run func(context.Context) error) error {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return run(ctx)
	}
	attrs := []attribute.KeyValue{attribute.String("db.system.name", d.system), attribute.String("db.operation.name", op)}
	if query != "" {
		attrs = append(attrs, attribute.String("db.query.text", query))
	}
	ctx, s := d.tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	err := run(ctx)
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, "statement failed")
	}
	s.End()
	return err
}

// operation is the statement's first keyword, e.g. SELECT: a span name of
// a handful of values.
func operation(query string) string {
	op, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	return strings.ToUpper(op)
}

func (d *tracedDriver) Exec(ctx context.Context, query string, args, v any) error {
	return d.traced(ctx, operation(query), query, func(ctx context.Context) error {
		return d.Driver.Exec(ctx, query, args, v)
	})
}

func (d *tracedDriver) Query(ctx context.Context, query string, args, v any) error {
	return d.traced(ctx, operation(query), query, func(ctx context.Context) error {
		return d.Driver.Query(ctx, query, args, v)
	})
}

func (d *tracedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

// BeginTx starts a transaction with opts, as entsql.Driver does, so that
// ent's Client.BeginTx still works through the wrapper.
func (d *tracedDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	var tx dialect.Tx
	err := d.traced(ctx, "BEGIN", "", func(context.Context) (err error) {
		tx, err = d.begin(ctx, opts) // ctx, not the span's: the transaction outlives it
		return err
	})
	if err != nil {
		return nil, err
	}
	return &tracedTx{Tx: tx, ctx: ctx, d: d}, nil
}

// begin starts a transaction on the wrapped driver.
func (d *tracedDriver) begin(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	if b, can := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	}); can {
		return b.BeginTx(ctx, opts)
	}
	if opts == nil {
		return d.Driver.Tx(ctx)
	}
	return nil, fmt.Errorf("telemetry: driver %T cannot begin a transaction with options", d.Driver)
}

// tracedTx traces a transaction's statements, and its commit or rollback
// under the context it began with.
type tracedTx struct {
	dialect.Tx
	ctx context.Context
	d   *tracedDriver
}

func (t *tracedTx) Exec(ctx context.Context, query string, args, v any) error {
	return t.d.traced(ctx, operation(query), query, func(ctx context.Context) error {
		return t.Tx.Exec(ctx, query, args, v)
	})
}

func (t *tracedTx) Query(ctx context.Context, query string, args, v any) error {
	return t.d.traced(ctx, operation(query), query, func(ctx context.Context) error {
		return t.Tx.Query(ctx, query, args, v)
	})
}

func (t *tracedTx) Commit() error {
	return t.d.traced(t.ctx, "COMMIT", "", func(context.Context) error { return t.Tx.Commit() })
}

func (t *tracedTx) Rollback() error {
	return t.d.traced(t.ctx, "ROLLBACK", "", func(context.Context) error { return t.Tx.Rollback() })
}
