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

// span starts a span for op under ctx's span, when that one records.
func span(ctx context.Context, tracer trace.Tracer, system, op, query string) (context.Context, trace.Span, bool) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil, false
	}
	attrs := []attribute.KeyValue{attribute.String("db.system.name", system), attribute.String("db.operation.name", op)}
	if query != "" {
		attrs = append(attrs, attribute.String("db.query.text", query))
	}
	ctx, s := tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, s, true
}

// end ends s with err's outcome.
func end(s trace.Span, err error) {
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, "statement failed")
	}
	s.End()
}

// operation is the statement's first keyword, e.g. SELECT: a span name of
// a handful of values.
func operation(query string) string {
	op, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	return strings.ToUpper(op)
}

func (d *tracedDriver) Exec(ctx context.Context, query string, args, v any) error {
	ctx, s, ok := span(ctx, d.tracer, d.system, operation(query), query)
	err := d.Driver.Exec(ctx, query, args, v)
	if ok {
		end(s, err)
	}
	return err
}

func (d *tracedDriver) Query(ctx context.Context, query string, args, v any) error {
	ctx, s, ok := span(ctx, d.tracer, d.system, operation(query), query)
	err := d.Driver.Query(ctx, query, args, v)
	if ok {
		end(s, err)
	}
	return err
}

func (d *tracedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

// BeginTx starts a transaction with opts, as entsql.Driver does, so that
// ent's Client.BeginTx still works through the wrapper.
func (d *tracedDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	_, s, ok := span(ctx, d.tracer, d.system, "BEGIN", "")
	var tx dialect.Tx
	var err error
	if b, can := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	}); can {
		tx, err = b.BeginTx(ctx, opts)
	} else if opts == nil {
		tx, err = d.Driver.Tx(ctx)
	} else {
		err = fmt.Errorf("telemetry: driver %T cannot begin a transaction with options", d.Driver)
	}
	if ok {
		end(s, err)
	}
	if err != nil {
		return nil, err
	}
	return &tracedTx{Tx: tx, ctx: ctx, d: d}, nil
}

// tracedTx traces a transaction's statements, and its commit or rollback
// under the context it began with.
type tracedTx struct {
	dialect.Tx
	ctx context.Context
	d   *tracedDriver
}

func (t *tracedTx) Exec(ctx context.Context, query string, args, v any) error {
	ctx, s, ok := span(ctx, t.d.tracer, t.d.system, operation(query), query)
	err := t.Tx.Exec(ctx, query, args, v)
	if ok {
		end(s, err)
	}
	return err
}

func (t *tracedTx) Query(ctx context.Context, query string, args, v any) error {
	ctx, s, ok := span(ctx, t.d.tracer, t.d.system, operation(query), query)
	err := t.Tx.Query(ctx, query, args, v)
	if ok {
		end(s, err)
	}
	return err
}

func (t *tracedTx) Commit() error {
	_, s, ok := span(t.ctx, t.d.tracer, t.d.system, "COMMIT", "")
	err := t.Tx.Commit()
	if ok {
		end(s, err)
	}
	return err
}

func (t *tracedTx) Rollback() error {
	_, s, ok := span(t.ctx, t.d.tracer, t.d.system, "ROLLBACK", "")
	err := t.Tx.Rollback()
	if ok {
		end(s, err)
	}
	return err
}
