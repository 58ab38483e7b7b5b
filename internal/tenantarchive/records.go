package tenantarchive

import "time"

// The records of an archive, one type per entry: a line of the entry is
// one record as JSON. Fields are the database's, with every reference to
// another row made a name (handle, slug, ref or number) and every
// timestamp in UTC at full precision.

// memberRecord is a line of members.jsonl. The sign-in account a person's
// member is linked to is not exported: see the package's docs on access.
type memberRecord struct {
	Handle      string     `json:"handle"`
	DisplayName string     `json:"display_name"`
	Kind        string     `json:"kind"`
	Role        string     `json:"role"`
	Sponsor     string     `json:"sponsor,omitempty"` // an assistant's sponsor's handle
	CreatedAt   time.Time  `json:"created_at"`
	RemovedAt   *time.Time `json:"removed_at,omitempty"`
}

// boardRecord is a line of boards.jsonl.
type boardRecord struct {
	Slug       string         `json:"slug"`
	Name       string         `json:"name"`
	IsDefault  bool           `json:"is_default"`
	Rules      string         `json:"rules"`
	WIPLimits  map[string]int `json:"wip_limits"`
	Kinds      []string       `json:"kinds"`
	Version    int            `json:"version"`
	CreatedAt  time.Time      `json:"created_at"`
	ArchivedAt *time.Time     `json:"archived_at,omitempty"`
}

// taskRecord is a line of tasks.jsonl.
type taskRecord struct {
	Ref         string     `json:"ref"`
	Board       string     `json:"board"`
	Title       string     `json:"title"`
	Note        string     `json:"note"`
	Lane        string     `json:"lane"`
	Kind        string     `json:"kind"`
	Size        string     `json:"size,omitempty"`
	Assignees   []string   `json:"assignees"`
	Labels      []string   `json:"labels"`
	Project     string     `json:"project"`
	Position    int        `json:"position"`
	Flagged     bool       `json:"flagged"`
	FlagReason  string     `json:"flag_reason"`
	TextAuthors []string   `json:"text_authors"`
	Version     int        `json:"version"`
	CreatedBy   string     `json:"created_by"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	DeletedAt   *time.Time `json:"deleted_at,omitempty"`
}

// linkRecord is a line of links.jsonl.
type linkRecord struct {
	From      string    `json:"from"`
	To        string    `json:"to"`
	Kind      string    `json:"kind"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
}

// commentRecord is a line of comments.jsonl.
type commentRecord struct {
	Number    int        `json:"number"`
	Task      string     `json:"task"`
	Author    string     `json:"author"`
	Body      string     `json:"body"`
	Version   int        `json:"version"`
	CreatedAt time.Time  `json:"created_at"`
	EditedAt  *time.Time `json:"edited_at,omitempty"`
}

// noteRecord is a line of context_notes.jsonl.
type noteRecord struct {
	Number    int       `json:"number"`
	Board     string    `json:"board"`
	Author    string    `json:"author"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

// workRecord is a line of work_items.jsonl. It has no lease secret: a
// claimed item's lease ends with the export (LeaseExpiresAt is at the
// latest the export's time), so after an import it can be claimed again
// at once, as a lapsed lease can.
type workRecord struct {
	Task              string     `json:"task"`
	Board             string     `json:"board"`
	State             string     `json:"state"`
	Plan              string     `json:"plan"`
	ApprovedBy        string     `json:"approved_by"`
	ApprovedAt        time.Time  `json:"approved_at"`
	LeaseMinutes      int        `json:"lease_minutes"`
	MaxClaims         int        `json:"max_claims"`
	Claims            int        `json:"claims"`
	Fence             int        `json:"fence"`
	Holder            string     `json:"holder,omitempty"`
	LeaseExpiresAt    *time.Time `json:"lease_expires_at,omitempty"`
	LastReleaseReason string     `json:"last_release_reason"`
	TestStatus        string     `json:"test_status,omitempty"`
	CompletedAt       *time.Time `json:"completed_at,omitempty"`
}

// activityRecord is a line of activity.jsonl: the tenant's history. Its
// detail names tasks by ref, members by handle, boards by slug, comments,
// notes and decisions by their number or key, as the services write it:
// it holds no database id, so it is written and loaded as it is.
type activityRecord struct {
	Actor     string         `json:"actor"`
	ActorKind string         `json:"actor_kind"`
	Task      string         `json:"task,omitempty"`
	Action    string         `json:"action"`
	Detail    map[string]any `json:"detail,omitempty"`
	Client    string         `json:"client"`
	CreatedAt time.Time      `json:"created_at"`
}

// auditRecord is a line of audit_events.jsonl. Member is the handle of
// the calling member when it is a member of the tenant (the row's member
// id, translated); MemberHandle is the handle as the call recorded it.
// TokenID is a token's public id (jti), never the token.
type auditRecord struct {
	OccurredAt    time.Time `json:"occurred_at"`
	Member        string    `json:"member,omitempty"`
	MemberHandle  string    `json:"member_handle"`
	MemberKind    string    `json:"member_kind,omitempty"`
	SponsorHandle string    `json:"sponsor_handle"`
	TokenID       string    `json:"token_id"`
	SessionLabel  string    `json:"session_label"`
	Method        string    `json:"method"`
	Tool          string    `json:"tool"`
	Targets       []string  `json:"targets,omitempty"`
	Outcome       string    `json:"outcome"`
	ErrorMessage  string    `json:"error_message"`
	TraceID       string    `json:"trace_id"`
	DurationMS    int64     `json:"duration_ms"`
}
