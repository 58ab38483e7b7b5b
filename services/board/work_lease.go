package board

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/workitem"
)

// Lease token formats: the prefix names the format. A wl2 token names
// the task by its number in the tenant; a wl1 token, as issued before,
// named the work item by its id, a sequence of the whole platform, which
// told a tenant how much work every tenant approved. wl1 tokens are still
// accepted, so leases taken before an upgrade keep working until they end.
const (
	leasePrefix   = "wl2"
	leasePrefixV1 = "wl1"
)

// leaseSecretLen is the number of random bytes in a lease token.
const leaseSecretLen = 32

// leaseToken is a parsed lease token: the task it is for (by number; by
// its work item's id in a wl1 token), the fence it was issued under and
// its secret. Only the secret's SHA-256 is stored, so the database alone
// cannot forge a token.
type leaseToken struct {
	task, item, fence int // one of task and item is 0
	secret            []byte
}

// newLeaseSecret returns the secret of a new lease and its hash to store.
func newLeaseSecret() (secret, hash []byte) {
	secret = make([]byte, leaseSecretLen)
	_, _ = rand.Read(secret) // never fails, per crypto/rand
	sum := sha256.Sum256(secret)
	return secret, sum[:]
}

// leaseTokenOf is the token of a lease on task number claimed under fence.
func leaseTokenOf(number, fence int, secret []byte) string {
	return strings.Join([]string{leasePrefix, strconv.Itoa(number), strconv.Itoa(fence),
		base64.RawURLEncoding.EncodeToString(secret)}, ".")
}

// parseLease parses a lease token, or says it is not one.
func parseLease(s string) (leaseToken, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return leaseToken{}, domainerr.New(domainerr.Invalid, "lease_token is missing: pass the lease_token work_next returned with the task")
	}
	bad := domainerr.New(domainerr.Invalid, "lease_token is not a lease token: pass the lease_token work_next returned with the task, unchanged")
	parts := strings.Split(s, ".")
	if len(parts) != 4 || (parts[0] != leasePrefix && parts[0] != leasePrefixV1) {
		return leaseToken{}, bad
	}
	id, err1 := strconv.Atoi(parts[1])
	fence, err2 := strconv.Atoi(parts[2])
	secret, err3 := base64.RawURLEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil || err3 != nil || id < 1 || fence < 1 || len(secret) != leaseSecretLen {
		return leaseToken{}, bad
	}
	if parts[0] == leasePrefixV1 {
		return leaseToken{item: id, fence: fence, secret: secret}, nil
	}
	return leaseToken{task: id, fence: fence, secret: secret}, nil
}

// matches reports, in constant time, whether l's secret is the one hash
// was made of; a nil hash matches nothing.
func (l leaseToken) matches(hash *[]byte) bool {
	sum := sha256.Sum256(l.secret)
	return hash != nil && subtle.ConstantTimeCompare(sum[:], *hash) == 1
}

// heldWork returns the task with ref and its work item, provided token is
// the caller's current, unexpired lease on it at now; otherwise it says
// why the lease is not (or no longer) valid and what to do.
func heldWork(ctx context.Context, tx *ent.Tx, a actor, ref, token string, now time.Time) (*ent.Task, *ent.WorkItem, error) {
	if _, err := parseRef(ref); err != nil {
		return nil, nil, err
	}
	l, err := parseLease(token)
	if err != nil {
		return nil, nil, err
	}
	t, err := findTask(ctx, tx.Client(), a, ref)
	if err != nil {
		return nil, nil, err
	}
	w, err := workOf(ctx, tx, a, t)
	if err != nil {
		return nil, nil, err
	}
	if w == nil {
		return nil, nil, domainerr.New(domainerr.NotFound,
			"%s is not approved work, so nobody holds a lease on it: claim approved work with work_next", Ref(t.Number))
	}
	if err := checkLease(t, w, l, a, now); err != nil {
		return nil, nil, err
	}
	return t, w, nil
}

// checkLease says why l is not the caller's current lease on w, the work
// on t, at now; nil when it is.
func checkLease(t *ent.Task, w *ent.WorkItem, l leaseToken, a actor, now time.Time) error {
	ref := Ref(t.Number)
	switch {
	case (l.task != 0 && l.task != t.Number) || (l.item != 0 && l.item != w.ID) || l.fence > w.Fence:
		return domainerr.New(domainerr.Invalid,
			"this lease_token was not issued for %s: pass the lease_token work_next returned with %s", ref, ref)
	case l.fence < w.Fence:
		return staleLease(ref)
	case w.State != workitem.StateClaimed:
		return endedLease(ref, w)
	case !l.matches(w.LeaseSecretHash):
		return domainerr.New(domainerr.PermissionDenied,
			"this lease_token does not match the lease on %s: pass the lease_token work_next returned with %s, unchanged", ref, ref)
	case w.HolderID == nil || *w.HolderID != a.member.ID:
		return domainerr.New(domainerr.PermissionDenied,
			"the lease on %s belongs to another member, not you: work only on tasks you claimed with work_next", ref)
	case lapsed(w, now):
		return expiredLease(ref, w)
	}
	return nil
}

// staleLease is the refusal of a token issued before the latest claim.
func staleLease(ref string) error {
	return domainerr.New(domainerr.Conflict,
		"Your lease on %s is no longer valid: another claim took it over; stop working on it and call work_next", ref)
}

// endedLease is the refusal of a token whose lease ended by release or
// completion (or lapsed at the claim limit).
func endedLease(ref string, w *ent.WorkItem) error {
	switch w.State {
	case workitem.StateCompleted:
		return domainerr.New(domainerr.Conflict,
			"The work on %s is completed: its lease ended then; call work_next for more work", ref)
	case workitem.StateExhausted:
		return domainerr.New(domainerr.Conflict,
			"Your lease on %s has ended and the task was claimed its limit of %d times, so it waits for a person to approve it again: stop working on it and call work_next",
			ref, w.MaxClaims)
	}
	return domainerr.New(domainerr.Conflict,
		"Your lease on %s has ended: the task went back to the queue; stop working on it and call work_next", ref)
}

// expiredLease is the refusal of a token whose lease ran out.
func expiredLease(ref string, w *ent.WorkItem) error {
	at := "earlier"
	if w.LeaseExpiresAt != nil {
		at = "at " + stamp(*w.LeaseExpiresAt)
	}
	if w.Claims >= w.MaxClaims {
		return domainerr.New(domainerr.Conflict,
			"Your lease on %s expired %s; the task was claimed its limit of %d times, so it waits for a person to approve it again: stop working on it and call work_next",
			ref, at, w.MaxClaims)
	}
	return domainerr.New(domainerr.Conflict,
		"Your lease on %s expired %s and the task went back to the queue: stop working on it and call work_next", ref, at)
}

// fenced is the condition that w is as it was read: in the caller's
// tenant, with the same fence and state. An update guarded by it changes
// nothing if a claim or another change came in between.
func fenced(a actor, w *ent.WorkItem) []predicate.WorkItem {
	return []predicate.WorkItem{workitem.TenantID(a.tenant.ID), workitem.Fence(w.Fence), workitem.StateEQ(w.State)}
}

// endLease returns the update that ends the lease of w, guarded by
// fenced.
func endLease(tx *ent.Tx, a actor, w *ent.WorkItem) *ent.WorkItemUpdateOne {
	return tx.WorkItem.UpdateOne(w).Where(fenced(a, w)...).
		ClearHolderID().ClearLeaseSecretHash().ClearLeaseExpiresAt()
}

// saveWork runs u, an update of w guarded by its fence: a claim or another
// change between our read and this write makes the caller's lease stale.
func saveWork(ctx context.Context, t *ent.Task, u *ent.WorkItemUpdateOne) (*ent.WorkItem, error) {
	w, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, staleLease(Ref(t.Number))
	}
	return w, err
}
