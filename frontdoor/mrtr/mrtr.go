// Package mrtr carries a worker's multi-round requests (MCP 2026-07-28's
// input_required results) across the client: a worker that needs input
// returns InputRequired; the client gets the input requests and a sealed
// requestState; its retry brings answers and the state back, and the
// worker gets them as ClientInput. The state is sealed, not stored, so any
// front door replica holding the keys can take the retry, and it is bound
// to the caller, the request and its arguments, so a client can neither
// read nor alter it, nor replay it elsewhere.
package mrtr

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/sealed"
)

// statePurpose keeps round states apart from anything else sealed with
// the same keys, confirmation states included.
const statePurpose = "taskwire/mcp input-round v1"

// DefaultTTL is how long a client has to answer a round when Rounds.TTL
// is zero: long enough for a person to fill in a form.
const DefaultTTL = 10 * time.Minute

// Binding is what a request state is bound to.
type Binding struct {
	Tenant string
	Member int
	// Target names the request, e.g. "tools/call test_x" or
	// "prompts/get name".
	Target string
	// Args are the request's arguments, digested canonically: a retry
	// may send them in another order, not with other values.
	Args json.RawMessage
}

// Rounds seals and opens the request states of input rounds.
type Rounds struct {
	// Box seals the states; front doors that share its keys accept each
	// other's states. Nil refuses every round.
	Box *sealed.Box
	// TTL is how long a state stays good (zero means DefaultTTL).
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// roundState is what a sealed requestState holds.
type roundState struct {
	Tenant  string `json:"t"`
	Member  int    `json:"m"`
	Target  string `json:"target"`
	Digest  string `json:"d"`   // of the arguments, canonical JSON
	Expires int64  `json:"exp"` // unix seconds
	State   []byte `json:"s,omitempty"`
}

// errNoKeys reports a front door configured without state keys, which can
// run no tool that asks for input.
var errNoKeys = errors.New("mrtr: no keys to seal request states; configure them for tools that ask for input")

// seal returns the requestState carrying state, bound to b.
func (r *Rounds) seal(b Binding, state []byte) (string, error) {
	if r == nil || r.Box == nil {
		return "", errNoKeys
	}
	digest, err := ArgsDigest(b.Args)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(roundState{
		Tenant: b.Tenant, Member: b.Member, Target: b.Target, Digest: digest,
		Expires: r.now().Add(r.ttl()).Unix(), State: state,
	})
	if err != nil {
		return "", err
	}
	return r.Box.Seal(statePurpose, raw), nil
}

// open returns the worker's state sealed in s, if s was sealed for b and
// has not expired. Every failure is the same -32602: telling a client
// which check failed would help only someone probing the states.
func (r *Rounds) open(b Binding, s string) ([]byte, error) {
	if r == nil || r.Box == nil {
		return nil, errNoKeys
	}
	raw, err := r.Box.Open(statePurpose, s)
	var st roundState
	if err != nil || json.Unmarshal(raw, &st) != nil {
		return nil, errBadState
	}
	digest, err := ArgsDigest(b.Args)
	if err != nil || st.Tenant != b.Tenant || st.Member != b.Member || st.Target != b.Target ||
		st.Digest != digest || r.now().Unix() > st.Expires {
		return nil, errBadState
	}
	return st.State, nil
}

var errBadState = &jsonrpc.Error{Code: jsonrpc.InvalidParams,
	Message: "invalid params: requestState was altered, expired or not issued for this call (same request, arguments and caller); call again without it"}

func (r *Rounds) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Rounds) ttl() time.Duration {
	if r.TTL > 0 {
		return r.TTL
	}
	return DefaultTTL
}

// ArgsDigest hashes arguments in canonical form (object keys sorted, no
// spaces), so a retry with the same arguments in another order or layout
// still matches. Absent, null and {} digest alike: MCP reads them all as
// no arguments, and a client may spell them differently on its retry.
func ArgsDigest(args json.RawMessage) (string, error) {
	var v any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &v); err != nil {
			return "", err
		}
	}
	if v == nil {
		v = map[string]any{}
	}
	canonical, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canonical)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
