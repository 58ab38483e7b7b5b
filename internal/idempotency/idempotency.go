// Package idempotency makes writes safe to retry. A write that carries an
// idempotency key runs once per (tenant, member, key): its first result is
// stored in the write's own transaction, so the write and the record of it
// commit together or not at all, and a retry with the same key, on any
// worker, gets that first result back without writing again. The same key
// with other arguments is refused.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/idempotencykey"
	"github.com/taskwire/taskwire/internal/store"
)

// TTL is how long a key is remembered. A key older than this may be used
// again for a new write.
const TTL = 24 * time.Hour

// MaxKeyLen is the longest key accepted, in characters.
const MaxKeyLen = 200

// KeyField is the name of the request field that holds the key.
const KeyField = "idempotency_key"

// Caller is who makes the write: keys are per member of a tenant.
type Caller struct {
	TenantID int
	MemberID int
}

// errSeen says the key is recorded already.
var errSeen = errors.New("idempotency: key seen")

// Do runs write in one transaction of client. When req carries an
// idempotency key (its idempotency_key field), the key is recorded in that
// transaction along with write's result; if the key is recorded already,
// write is not run and the recorded result is returned instead. method
// names the RPC, e.g. "/taskwire.v1.BoardService/CreateTask": a key used
// for another method, or with other arguments, is refused. A write that
// fails records nothing, so retrying it runs it again.
func Do[R proto.Message](ctx context.Context, client *ent.Client, c Caller, method string, req proto.Message, write func(tx *ent.Tx) (R, error)) (R, error) {
	var zero R
	key := keyOf(req)
	if key == "" {
		var resp R
		err := store.WithTx(ctx, client, func(tx *ent.Tx) error {
			var err error
			resp, err = write(tx)
			return err
		})
		if err != nil {
			return zero, err
		}
		return resp, nil
	}
	if n := utf8.RuneCountInString(key); n > MaxKeyLen {
		return zero, domainerr.New(domainerr.Invalid, "idempotency_key is %d characters long: use at most %d", n, MaxKeyLen)
	}
	digest := Digest(req)
	// A concurrent first call with the same key may roll back after this
	// one saw its record: then the key is free again, and this one retries.
	for range 3 {
		var resp R
		err := store.WithTx(ctx, client, func(tx *ent.Tx) error {
			rec, err := tx.IdempotencyKey.Create().
				SetTenantID(c.TenantID).SetMemberID(c.MemberID).SetKey(key).
				SetMethod(method).SetRequestDigest(digest).Save(ctx)
			if ent.IsConstraintError(err) {
				return errSeen
			}
			if err != nil {
				return err
			}
			if resp, err = write(tx); err != nil {
				return err
			}
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
			if err != nil {
				return err
			}
			return tx.IdempotencyKey.UpdateOne(rec).SetResponse(b).Exec(ctx)
		})
		if !errors.Is(err, errSeen) {
			if err != nil {
				return zero, err
			}
			return resp, nil
		}
		replay, found, err := recorded[R](ctx, client, c, key, method, digest)
		if err != nil || found {
			return replay, err
		}
	}
	return zero, domainerr.New(domainerr.Unavailable, "another call with idempotency_key %q is in progress: try again in a moment", key)
}

// recorded returns the result recorded for key. found is false when there
// is none any more (the call that held it rolled back, or it had expired
// and was forgotten here).
func recorded[R proto.Message](ctx context.Context, client *ent.Client, c Caller, key, method string, digest []byte) (resp R, found bool, err error) {
	rec, err := client.IdempotencyKey.Query().Where(
		idempotencykey.TenantID(c.TenantID), idempotencykey.MemberID(c.MemberID), idempotencykey.Key(key),
	).Only(ctx)
	if ent.IsNotFound(err) {
		return resp, false, nil
	}
	if err != nil {
		return resp, false, err
	}
	if time.Since(rec.CreatedAt) > TTL {
		_, err := client.IdempotencyKey.Delete().Where(idempotencykey.ID(rec.ID), idempotencykey.CreatedAt(rec.CreatedAt)).Exec(ctx)
		return resp, false, err
	}
	if rec.Method != method || !bytes.Equal(rec.RequestDigest, digest) {
		return resp, false, domainerr.New(domainerr.Conflict,
			"idempotency_key %q was used before for a different call (another tool or other arguments): use a new key for a new call, or repeat the first call's arguments exactly to get its result", key)
	}
	resp = resp.ProtoReflect().Type().New().Interface().(R)
	if err := proto.Unmarshal(rec.Response, resp); err != nil {
		return resp, false, err
	}
	return resp, true, nil
}

// keyOf returns the idempotency key of req, "" when it has none.
func keyOf(req proto.Message) string {
	m := req.ProtoReflect()
	f := m.Descriptor().Fields().ByName(KeyField)
	if f == nil || f.Kind() != protoreflect.StringKind || f.IsList() {
		return ""
	}
	return m.Get(f).String()
}

// Digest returns a digest of req's arguments: the key itself and the
// confirmation id the front door fills in (a new one on every retry) left
// out.
func Digest(req proto.Message) []byte {
	m := proto.Clone(req).ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		opts, _ := proto.GetExtension(f.Options(), mcpv1.E_Field).(*mcpv1.Field)
		if f.Name() == KeyField || opts.GetConfirmation() {
			m.Clear(f)
		}
	}
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
	sum := sha256.Sum256(append([]byte(string(m.Descriptor().FullName())+"\x00"), b...))
	return sum[:]
}
