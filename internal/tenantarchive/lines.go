package tenantarchive

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// batchSize is how many rows an import inserts with one statement: few
// statements, and well under the databases' limits on parameters.
var batchSize = 500

// records calls each with every record of the entry name, in order, one
// line at a time: nothing more than a line is held. The entry's checksum
// and record count are checked as it is read, so damage surfaces at the
// latest at its end, as an *archive.DamagedError, before the import
// commits. It returns how many records there were.
func records[T any](r *archive.Reader, name string, each func(line int, rec *T) error) (int64, error) {
	rc, err := r.Open(name)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	dec := json.NewDecoder(rc)
	dec.DisallowUnknownFields() // a field this version does not know would be lost
	dec.UseNumber()             // a number in a history entry's detail is kept as written
	for line := 1; ; line++ {
		var rec T
		err := dec.Decode(&rec)
		var damaged *archive.DamagedError
		switch {
		case errors.Is(err, io.EOF):
			return int64(line - 1), nil
		case errors.As(err, &damaged):
			return 0, damaged
		case err != nil:
			return 0, domainerr.New(domainerr.Invalid, "%s, record %d, is not a valid record: %v", name, line, err)
		}
		if err := each(line, &rec); err != nil {
			return 0, atRecord(err, name, line)
		}
	}
}

// batch collects the creates of one kind and inserts them batchSize at
// a time.
type batch[C any] struct {
	pending []C
	insert  func(ctx context.Context, creates []C) error
}

func newBatch[C any](insert func(ctx context.Context, creates []C) error) *batch[C] {
	return &batch[C]{pending: make([]C, 0, batchSize), insert: insert}
}

// add queues c, inserting the batch when it is full.
func (b *batch[C]) add(ctx context.Context, c C) error {
	b.pending = append(b.pending, c)
	if len(b.pending) < batchSize {
		return nil
	}
	return b.flush(ctx)
}

// flush inserts what is queued.
func (b *batch[C]) flush(ctx context.Context) error {
	if len(b.pending) == 0 {
		return nil
	}
	err := b.insert(ctx, b.pending)
	b.pending = b.pending[:0]
	return err
}

// missing is the error of a record naming what the archive does not hold.
func missing(what, name, entry string) error {
	return domainerr.New(domainerr.Invalid, "it names %s %q, which %s does not hold", what, name, entry)
}

// atRecord says which record err is about, when it is a refusal of the
// record (a domain error); a failure of the database is passed on.
func atRecord(err error, entry string, line int) error {
	var de *domainerr.Error
	if !errors.As(err, &de) {
		return err
	}
	return domainerr.New(de.Kind, "%s, record %d: %s", entry, line, de.Msg)
}
