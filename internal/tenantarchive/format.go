// Package tenantarchive exports one tenant of a Taskwire database to a
// portable archive, and imports such an archive as a new tenant of any
// database, SQLite or PostgreSQL (taskwire export, taskwire import).
//
// The archive (see internal/archive) holds one JSON Lines file per kind
// of record and a manifest with the format's version, each file's record
// count and checksum, and the tenant's own fields (Meta). No record names
// a database id: members are named by handle, boards by slug, tasks by
// ref, comments and context notes by their number in the tenant, so an
// archive means the same in any database. Nothing secret is written:
// no tokens, keys, sessions, sign-in accounts, OAuth grants, lease
// secrets, idempotency keys or pending decisions. MCP task operations
// (the operations table) are left out too: like leases they are
// ephemeral, kept an hour for the client that polls them, and mean
// nothing to another deployment.
package tenantarchive

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Format is the archive format of a tenant export.
const Format = "taskwire-export"

// Version is the export format this build writes and reads. Raise it
// with any change a reader of the previous version would misread; an
// import refuses every other version rather than guess.
const Version = 1

// The archive's entries, one per kind, in the order they are written and
// loaded: each names only what an earlier entry holds.
const (
	MembersEntry      = "members.jsonl"
	BoardsEntry       = "boards.jsonl"
	TasksEntry        = "tasks.jsonl"
	LinksEntry        = "links.jsonl"
	CommentsEntry     = "comments.jsonl"
	ContextNotesEntry = "context_notes.jsonl"
	WorkItemsEntry    = "work_items.jsonl"
	ActivityEntry     = "activity.jsonl"
	AuditEventsEntry  = "audit_events.jsonl"
)

// Entries lists the entries in the order they are written and loaded.
var Entries = []string{
	MembersEntry, BoardsEntry, TasksEntry, LinksEntry, CommentsEntry,
	ContextNotesEntry, WorkItemsEntry, ActivityEntry, AuditEventsEntry,
}

// Meta is the manifest's Meta of an export: which tenant, which export.
type Meta struct {
	// ExportID is random per export: a tenant imported from it records
	// it, so that importing the same archive again changes nothing.
	ExportID string `json:"export_id"`
	// Taskwire is the version of the build that wrote the archive.
	Taskwire string `json:"taskwire"`
	// SchemaVersion is the database schema of that build (store.SchemaVersion),
	// for information: the format's Version is what a reader checks.
	SchemaVersion int        `json:"schema_version"`
	Tenant        TenantMeta `json:"tenant"`
}

// TenantMeta is the exported tenant's own fields. The sequences are the
// last numbers handed out, which may exceed the highest number exported
// (a task deleted for good keeps its number used).
type TenantMeta struct {
	Slug       string    `json:"slug"`
	Name       string    `json:"name"`
	CreatedAt  time.Time `json:"created_at"`
	TaskSeq    int       `json:"task_seq"`
	CommentSeq int       `json:"comment_seq"`
	NoteSeq    int       `json:"note_seq"`
}

// ref is a task's ref, as callers know it: "T-12".
func ref(number int) string { return "T-" + strconv.Itoa(number) }

// parseRef returns the number of ref.
func parseRef(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "T-"))
	if err != nil || !strings.HasPrefix(s, "T-") || n <= 0 {
		return 0, fmt.Errorf("%q is not a task ref like T-12", s)
	}
	return n, nil
}

// utc is t in UTC, as every timestamp of an archive is written: the same
// instant reads the same from either database.
func utc(t time.Time) time.Time { return t.UTC() }

// utcp is utc for an optional time.
func utcp(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
