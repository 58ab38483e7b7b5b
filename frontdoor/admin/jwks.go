package admin

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
)

// PublicKey is a key tokens may be signed with, by its key id (the JWT
// "kid").
type PublicKey struct {
	ID  string
	Key ed25519.PublicKey
}

// jwk is one Ed25519 key as RFC 8037 writes it.
type jwk struct {
	Kty string `json:"kty"` // "OKP"
	Crv string `json:"crv"` // "Ed25519"
	X   string `json:"x"`   // the public key, base64url
	Kid string `json:"kid"`
	Alg string `json:"alg"` // "EdDSA"
	Use string `json:"use"` // "sig"
}

// encodeJWKS encodes keys as a JWK Set (RFC 7517), in their order.
func encodeJWKS(keys []PublicKey) ([]byte, error) {
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: []jwk{}}
	for _, k := range keys {
		if k.ID == "" || len(k.Key) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("admin: bad public key %q", k.ID)
		}
		set.Keys = append(set.Keys, jwk{
			Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(k.Key),
			Kid: k.ID, Alg: "EdDSA", Use: "sig",
		})
	}
	return json.Marshal(set)
}

// serveJWKS answers GET with the public keys tokens may be signed with:
// the signing key, then the retired ones, whose tokens still verify. It
// needs no credential. With Config.PublicKeys it is encoded per request,
// so a rotation shows at once.
func (e *Edge) serveJWKS(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body := e.jwks
	if body == nil {
		var err error
		if body, err = encodeJWKS(e.cfg.PublicKeys()); err != nil {
			e.log.Error("admin: cannot encode the JWKS", "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", "application/jwk-set+json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(body)
}
