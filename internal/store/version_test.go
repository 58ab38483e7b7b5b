package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/taskwire/taskwire/internal/ent/migrate"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// schemaFingerprints are the fingerprints of the ent schema each
// SchemaVersion migrates to.
var schemaFingerprints = map[int]string{
	1:  "2140f58ac5a24e13",
	2:  "802a5747965e7457",
	3:  "6a99c68ffb0f545b", // boards.archived_at
	4:  "4bcc4af54a86f10c", // accounts, sessions, sign-in links, OIDC identities, decisions; members.account_id
	5:  "ff09aec19a0968e8", // passkeys; accounts.operator
	6:  "edaa89bb97d54749", // boards.kinds and boards.version; activities.client
	7:  "f49d159f38be81d1", // oauth_clients, oauth_grants, oauth_codes, oauth_refresh_tokens; tokens.grant_id
	8:  "35ad221bd542d142", // task_title_tokens
	9:  "35ad221bd542d142", // the same tables; task_title_tokens holds every word of a title
	10: "35ad221bd542d142", // the same tables; on PostgreSQL, tasks.search_vector (the search setup)
	11: "b5ef9edf5ac9cd2c", // tenants.imported_from
	12: "632d2e11523c0cae", // operations (MCP tasks: tool calls running in the background, or waiting for a decision or input)
}

// TestSchemaVersionCoversSchema fails when the ent schema changes but
// SchemaVersion does not: workers that do not migrate would then accept a
// database without the new tables or columns.
func TestSchemaVersionCoversSchema(t *testing.T) {
	got := schemaFingerprint()
	if want := schemaFingerprints[store.SchemaVersion]; got != want {
		t.Errorf("the ent schema's fingerprint is %s, want %s for SchemaVersion %d: after a schema change, bump store.SchemaVersion to %d and add its fingerprint here",
			got, want, store.SchemaVersion, store.SchemaVersion+1)
	}
}

// schemaFingerprint hashes what a migration creates: tables, columns,
// indexes and foreign keys.
func schemaFingerprint() string {
	var b strings.Builder
	for _, tb := range migrate.Tables {
		fmt.Fprintf(&b, "table %s\n", tb.Name)
		for _, c := range tb.Columns {
			fmt.Fprintf(&b, " column %s %v size=%d null=%v unique=%v default=%v enums=%v\n", c.Name, c.Type, c.Size, c.Nullable, c.Unique, c.Default, c.Enums)
		}
		for _, ix := range tb.Indexes {
			fmt.Fprintf(&b, " index %s unique=%v", ix.Name, ix.Unique)
			for _, c := range ix.Columns {
				fmt.Fprintf(&b, " %s", c.Name)
			}
			b.WriteString("\n")
		}
		for _, fk := range tb.ForeignKeys {
			fmt.Fprintf(&b, " fk %s %s %s\n", fk.Symbol, fk.RefTable.Name, fk.OnDelete)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

func TestConnectRefusesUnmigratedDatabase(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			dsn := storetest.DSN(t, b)
			ctx := context.Background()
			if db, err := store.Connect(ctx, dsn); !errors.Is(err, store.ErrSchemaBehind) {
				if db != nil {
					db.Close()
				}
				t.Fatalf("Connect(empty database) = %v, want ErrSchemaBehind", err)
			}
			from, err := store.Migrate(ctx, dsn, quiet)
			if from != 0 || err != nil {
				t.Fatalf("Migrate(empty) = %d, %v, want 0, nil", from, err)
			}
			if from, err = store.Migrate(ctx, dsn, quiet); from != store.SchemaVersion || err != nil {
				t.Fatalf("Migrate again = %d, %v, want %d, nil", from, err, store.SchemaVersion)
			}
			db, err := store.Connect(ctx, dsn)
			if err != nil {
				t.Fatalf("Connect(migrated) = %v, want a database", err)
			}
			defer db.Close()
			if db.Version != store.SchemaVersion || db.Ping(ctx) != nil {
				t.Errorf("Connect(migrated).Version = %d (ping %v), want %d", db.Version, db.Ping(ctx), store.SchemaVersion)
			}
		})
	}
}

// TestMigrateConcurrently runs four migrations of one new PostgreSQL
// schema at once, as replicas of a migration job might: all succeed.
func TestMigrateConcurrently(t *testing.T) {
	dsn := storetest.DSN(t, storetest.Postgres)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { _, errs[i] = store.Migrate(context.Background(), dsn, quiet) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Migrate: %v", err)
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	dsn := storetest.DSN(t, storetest.SQLite)
	ctx := context.Background()
	if _, err := store.Migrate(ctx, dsn, quiet); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", strings.TrimPrefix(dsn, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(fmt.Sprintf(`UPDATE taskwire_schema SET version = %d`, store.SchemaVersion+1))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Migrate(ctx, dsn, quiet); !errors.Is(err, store.ErrSchemaAhead) {
		t.Errorf("Migrate(newer database) = %v, want ErrSchemaAhead", err)
	}
	d, err := store.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("Connect(newer database) = %v, want it accepted", err)
	}
	d.Close()
}
