package frontdoor

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// A legacy session lives in its own id. The Mcp-Session-Id this server
// issues is the session sealed with Config.SessionKeys (AES-256-GCM, key id
// in front: "<key id>.<base64url>", visible ASCII only), so any replica
// holding the keys can open it and none needs a session store or sticky
// routing. The price is that a session cannot be revoked before it
// expires: DELETE only acknowledges (see deleteSession).

// sessionPurpose keeps session ids apart from anything else sealed with
// the same keys.
const sessionPurpose = "taskwire/mcp session v1"

// sessionLifetime bounds a session: long enough for a working day of an
// assistant, short enough that a leaked id soon stops working. The token
// is still checked on every request, so a session outlives no token.
const sessionLifetime = 24 * time.Hour

// maxSessionCapabilities caps the client capabilities kept in a session,
// which travel in a header on every request.
const maxSessionCapabilities = 512

// keptCapabilities returns of the client capabilities caps those a
// session keeps: all of them when they fit maxSessionCapabilities, else
// only those Taskwire reads (elicitation, sampling, roots, and the
// extensions it serves), so that a client declaring much else, such as a
// large experimental object, does not lose elicitation or Apps with it;
// nil when not even those fit or caps is no object.
func keptCapabilities(caps json.RawMessage) json.RawMessage {
	if !isObject(caps) {
		return nil
	}
	if len(caps) <= maxSessionCapabilities {
		return caps
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(caps, &all) != nil {
		return nil
	}
	kept := map[string]json.RawMessage{}
	for _, name := range []string{"elicitation", "sampling", "roots"} {
		if v, ok := all[name]; ok {
			kept[name] = v
		}
	}
	if apps, ok := mcp.Extension(caps, ExtensionApps); ok {
		kept["extensions"], _ = json.Marshal(map[string]json.RawMessage{ExtensionApps: apps})
	}
	out, err := json.Marshal(kept)
	if err != nil || len(out) > maxSessionCapabilities {
		return nil
	}
	return out
}

// session is what a sealed Mcp-Session-Id holds.
type session struct {
	Version string `json:"v"`
	Tenant  string `json:"t"`
	Member  int    `json:"m"`
	Issued  int64  `json:"iat"` // unix seconds
	Expires int64  `json:"exp"` // unix seconds
	// Capabilities are those the client declared at initialize, those
	// Taskwire reads (keptCapabilities): elicitation lets a call ask its
	// person (legacy_elicit.go), the Apps extension shows views (apps.go).
	Capabilities json.RawMessage `json:"caps,omitempty"`
}

// errSession reports a session id that is forged, altered, sealed with a
// key no longer held, expired, or of a version no longer served: the
// client has to initialize again.
var errSession = errors.New("frontdoor: session id not valid")

// sessions seals and opens session ids.
type sessions struct {
	box *sealed.Box
	now func() time.Time
}

// issue returns the id of a new session of version for c.
func (s *sessions) issue(c identity.Caller, version string, caps json.RawMessage) (string, error) {
	caps = keptCapabilities(caps)
	now := s.now()
	raw, err := json.Marshal(session{
		Version: version, Tenant: c.Tenant, Member: c.Member,
		Issued: now.Unix(), Expires: now.Add(sessionLifetime).Unix(),
		Capabilities: caps,
	})
	if err != nil {
		return "", err
	}
	return s.box.Seal(sessionPurpose, raw), nil
}

// open returns the session of id, if id is a live session this server
// sealed.
func (s *sessions) open(id string) (session, error) {
	var ses session
	raw, err := s.box.Open(sessionPurpose, id)
	if err != nil || json.Unmarshal(raw, &ses) != nil {
		return session{}, errSession
	}
	if s.now().Unix() >= ses.Expires || !slices.Contains(legacyVersions, ses.Version) {
		return session{}, errSession
	}
	return ses, nil
}

// belongsTo reports whether the session was issued to c's principal. A
// session id is not a credential: another member's id is as unknown as a
// forged one.
func (ses session) belongsTo(c identity.Caller) bool {
	return ses.Tenant == c.Tenant && ses.Member == c.Member
}
