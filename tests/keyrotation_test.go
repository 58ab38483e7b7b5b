package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/tokens"
)

const rotationOperatorSecret = "twop_rotation-test-secret-of-at-least-32-bytes"

// keyCluster is a cluster whose worker mints tokens and rotates keys
// through the admin API, with retired keys verifying for window only.
func keyCluster(t *testing.T, s nodetest.Setup, window time.Duration) *nodetest.Cluster {
	t.Helper()
	op, err := adminedge.NewOperatorSecret(rotationOperatorSecret)
	if err != nil {
		t.Fatal(err)
	}
	s.Operator, s.Audience, s.KeysVerifyFor = op, "http://taskwire.test/api/mcp", window
	return nodetest.StartCluster(t, s)
}

// adminAt POSTs body to the JSON method at front door addr with bearer and
// returns the status and the decoded answer.
func adminAt(t *testing.T, addr, bearer, method, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/admin/v1/"+method, strings.NewReader(body))
	req.Host = "taskwire.test"
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s answered %d %s, not JSON", method, resp.StatusCode, data)
	}
	return resp.StatusCode, out
}

// jwksAt returns the kids front door addr lists at /.well-known/jwks.json.
func jwksAt(t *testing.T, addr string) []string {
	t.Helper()
	resp, err := http.Get("http://" + addr + adminedge.JWKSPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set struct {
		Keys []struct{ Kid string } `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, k := range set.Keys {
		kids = append(kids, k.Kid)
	}
	return kids
}

// TestSigningKeyRotation: an operator rotates the signing key through the
// admin API. Tokens signed before still verify on every front door, new
// tokens carry the new kid and verify everywhere once the front doors
// heard of the rotation, the JWKS lists both keys, and the old key is
// refused once past its verify_until.
func TestSigningKeyRotation(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) { testSigningKeyRotation(t, s) })
	}
}

func testSigningKeyRotation(t *testing.T, s nodetest.Setup) {
	const window = 3 * time.Second
	c := keyCluster(t, s, window)
	old := c.Token
	oldKid := nodetest.KeyID(t, old)

	// Only operators rotate.
	ownerAdmin := nodetest.Mint(t, c.DB, c.Issuer, tokens.CreateRequest{Tenant: "acme", Member: c.Owner, Admin: true})
	if status, m := adminAt(t, c.Fronts[0], ownerAdmin, "RotateSigningKey", `{}`); status != http.StatusForbidden {
		t.Fatalf("RotateSigningKey with an owner's admin token = %d %v, want 403", status, m)
	}
	status, m := adminAt(t, c.Fronts[0], rotationOperatorSecret, "RotateSigningKey", `{}`)
	if status != http.StatusOK {
		t.Fatalf("RotateSigningKey = %d %v, want 200", status, m)
	}
	current, _ := m["current"].(map[string]any)
	previous, _ := m["previous"].(map[string]any)
	newKid, _ := current["kid"].(string)
	if newKid == "" || newKid == oldKid || previous["kid"] != oldKid || previous["verifyUntil"] == nil {
		t.Fatalf("RotateSigningKey = %v, want a new kid and %s retired with verifyUntil", m, oldKid)
	}

	// The old token still works everywhere (within its window).
	for _, addr := range c.Fronts {
		if s := listAt(t, c, addr, old); s != http.StatusOK {
			t.Errorf("a token signed before the rotation at %s = %d, want 200", addr, s)
		}
	}
	// A token minted now carries the new kid, and every front door takes
	// it once told of the rotation.
	status, m = adminAt(t, c.Fronts[1], rotationOperatorSecret, "CreateToken", `{"tenant":"acme","member":"ada","scopes":["read"]}`)
	if status != http.StatusOK {
		t.Fatalf("CreateToken = %d %v", status, m)
	}
	fresh, _ := m["token"].(string)
	if got := nodetest.KeyID(t, fresh); got != newKid {
		t.Errorf("kid of a token minted after the rotation = %q, want %q", got, newKid)
	}
	for _, addr := range c.Fronts {
		poll.Until(t, 5*time.Second, "front door "+addr+" to take the new key", func() bool {
			return listAt(t, c, addr, fresh) == http.StatusOK
		})
		if kids := jwksAt(t, addr); !slices.Contains(kids, oldKid) || !slices.Contains(kids, newKid) {
			t.Errorf("JWKS at %s = %v, want %s and %s", addr, kids, oldKid, newKid)
		}
	}
	status, m = adminAt(t, c.Fronts[0], rotationOperatorSecret, "ListSigningKeys", `{}`)
	if list, _ := m["keys"].([]any); status != http.StatusOK || len(list) != 2 {
		t.Errorf("ListSigningKeys = %d %v, want two keys", status, m)
	}

	// Past its verify_until the old key is refused, and leaves the JWKS.
	for _, addr := range c.Fronts {
		poll.Until(t, window+5*time.Second, "front door "+addr+" to refuse the retired key", func() bool {
			return listAt(t, c, addr, old) == http.StatusUnauthorized
		})
		if kids := jwksAt(t, addr); slices.Contains(kids, oldKid) || !slices.Contains(kids, newKid) {
			t.Errorf("JWKS at %s past verify_until = %v, want %s only", addr, kids, newKid)
		}
		if s := listAt(t, c, addr, fresh); s != http.StatusOK {
			t.Errorf("the new key's token at %s = %d, want 200", addr, s)
		}
	}
}
