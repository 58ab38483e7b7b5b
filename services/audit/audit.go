// Package audit is the audit log: one event per call a member (or a
// platform operator) makes to a worker, recorded before the call is
// answered, and read back newest first by the tenant's owners and admins
// (the audit_list tool, and the admin API through Store.List).
//
// The worker decides what is recorded and when (worker.Config.Auditor,
// worker/audit.go): a write's event in the write's own transaction
// (RecordTx), any other call's in a batch (RecordAll). Store writes events
// and answers queries, every one confined to one tenant. An event holds
// who called, with which token, the tool or method, what the request named
// (refs, boards, members: never what it carried, so no task text) and how
// the call ended.
package audit

import (
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/ent"
)

// Outcomes of a call besides the gRPC code names of failures ("NotFound",
// "InvalidArgument", "Internal" …).
const (
	OutcomeOK      = "ok"
	OutcomeRefused = "refused" // PermissionDenied: the role, the token or the service said no
)

// Kinds of caller; the first two are the member kinds.
const (
	KindHuman     = "human"
	KindAssistant = "assistant"
	KindOperator  = "operator" // a platform operator: no member of the tenant
)

// OutcomeOf returns the outcome of a call that returned err: OutcomeOK,
// OutcomeRefused for PermissionDenied, else the code's name.
func OutcomeOf(err error) string {
	switch c := status.Code(err); c {
	case codes.OK:
		return OutcomeOK
	case codes.PermissionDenied:
		return OutcomeRefused
	default:
		return c.String()
	}
}

// Event is one call. Record reads the fields the worker knows; List
// returns them all.
type Event struct {
	ID         int // set by List
	OccurredAt time.Time
	// Tenant is the slug of the tenant the call acted in; TenantID its id
	// when the worker knew it (0: Record looks it up).
	Tenant   string
	TenantID int
	// MemberID is the calling member (0 for an operator). Member (the
	// handle), Kind and Sponsor are as the worker resolved them; when
	// Member is empty, Record looks them up by MemberID.
	MemberID     int
	Member       string
	Kind         string // KindHuman, KindAssistant or KindOperator; "" when unknown
	Sponsor      string // an assistant's sponsor's handle
	TokenID      string // the token's jti
	SessionLabel string // as the client sent it, checked and shortened by the worker
	Method       string // full gRPC method
	Tool         string // MCP tool name, "" for methods that are not tools
	Targets      []string
	Outcome      string
	Error        string // the failure's message, shortened
	TraceID      string
	Duration     time.Duration // kept to the millisecond
}

// Config holds what a Store needs.
type Config struct {
	Client *ent.Client // required, e.g. from store.Open
	// CursorKey seals the cursors List hands out (see package cursor), at
	// least 16 bytes. Workers that serve the same callers must share it,
	// or a page's next cursor is refused by the next worker.
	CursorKey []byte
}

// MinCursorKey is the shortest Config.CursorKey accepted.
const MinCursorKey = cursor.MinKeyLen

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("audit: Config.Client is nil")
	case len(c.CursorKey) < MinCursorKey:
		return errors.New("audit: Config.CursorKey is shorter than 16 bytes")
	}
	return nil
}

// Store records audit events and lists them. It implements the worker's
// Auditor (Record) and the AuditService (the audit_list tool).
type Store struct {
	taskwirev1.UnimplementedAuditServiceServer
	client  *ent.Client
	cursors *cursor.Sealer
}

var _ taskwirev1.AuditServiceServer = (*Store)(nil)

// New returns a Store for cfg.
func New(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cursors, err := cursor.New(cfg.CursorKey)
	if err != nil {
		return nil, err
	}
	return &Store{client: cfg.Client, cursors: cursors}, nil
}

// Register adds the AuditService to a gRPC server.
func (s *Store) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterAuditServiceServer(r, s)
}
