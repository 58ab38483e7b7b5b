// Package passkeytest is a software WebAuthn authenticator for tests: it
// answers the options a relying party sends the browser
// (navigator.credentials.create and get, as JSON) with what a platform
// authenticator holding one discoverable ES256 passkey would, attestation
// "none". It checks nothing a browser would (the origin is what the test
// says); it exists so that tests can drive the real relying party without
// a browser.
package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"

	"github.com/fxamacker/cbor/v2"
)

// The authenticator data flags it sets.
const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagAT = 0x40 // attested credential data follows
)

var b64 = base64.RawURLEncoding

// Authenticator holds one passkey once Create made it.
type Authenticator struct {
	// Origin is the origin the "browser" says the page had.
	Origin string
	// Counter is the signature counter: each signature adds one first.
	// A test sets it back to play a cloned authenticator.
	Counter uint32

	key        *ecdsa.PrivateKey
	id         []byte
	rpID       string
	userHandle []byte
}

// New returns an authenticator for pages at origin.
func New(origin string) *Authenticator { return &Authenticator{Origin: origin} }

// ID is the passkey's credential ID; nil before Create.
func (a *Authenticator) ID() []byte { return a.id }

// options is what the authenticator reads of either ceremony's options.
type options struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RPID      string `json:"rpId"`
		RP        struct {
			ID string `json:"id"`
		} `json:"rp"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"publicKey"`
}

// Create makes a new passkey for the creation options optionsJSON and
// returns the PublicKeyCredential a browser would send, as JSON.
func (a *Authenticator) Create(optionsJSON string) (string, error) {
	var o options
	if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil {
		return "", err
	}
	handle, err := b64.DecodeString(o.PublicKey.User.ID)
	if err != nil || o.PublicKey.RP.ID == "" {
		return "", errors.New("passkeytest: creation options without rp.id or user.id")
	}
	if a.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return "", err
	}
	a.id, a.rpID, a.userHandle = make([]byte, 16), o.PublicKey.RP.ID, handle
	rand.Read(a.id)
	cose, err := a.coseKey()
	if err != nil {
		return "", err
	}
	auth := a.authData(flagUP | flagUV | flagAT)
	auth = append(auth, make([]byte, 16)...) // AAGUID: none
	auth = binary.BigEndian.AppendUint16(auth, uint16(len(a.id)))
	auth = append(append(auth, a.id...), cose...)
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": auth})
	if err != nil {
		return "", err
	}
	return a.credential(map[string]any{
		"clientDataJSON":    b64.EncodeToString(a.clientData("webauthn.create", o.PublicKey.Challenge)),
		"attestationObject": b64.EncodeToString(att),
		"transports":        []string{"internal"},
	})
}

// Get signs the challenge of the request options optionsJSON with the
// passkey and returns the PublicKeyCredential a browser would send.
func (a *Authenticator) Get(optionsJSON string) (string, error) {
	var o options
	if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil {
		return "", err
	}
	if a.key == nil {
		return "", errors.New("passkeytest: no passkey: call Create first")
	}
	rpID := o.PublicKey.RPID
	if rpID == "" {
		rpID = a.rpID
	}
	a.rpID = rpID
	auth := a.authData(flagUP | flagUV)
	client := a.clientData("webauthn.get", o.PublicKey.Challenge)
	sum := sha256.Sum256(client)
	digest := sha256.Sum256(append(append([]byte{}, auth...), sum[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.key, digest[:])
	if err != nil {
		return "", err
	}
	return a.credential(map[string]any{
		"clientDataJSON":    b64.EncodeToString(client),
		"authenticatorData": b64.EncodeToString(auth),
		"signature":         b64.EncodeToString(sig),
		"userHandle":        b64.EncodeToString(a.userHandle),
	})
}

// authData is the authenticator data's fixed part: the RP ID's hash, the
// flags and the next signature counter.
func (a *Authenticator) authData(flags byte) []byte {
	a.Counter++
	h := sha256.Sum256([]byte(a.rpID))
	out := append(h[:], flags)
	return binary.BigEndian.AppendUint32(out, a.Counter)
}

func (a *Authenticator) clientData(typ, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.Origin, "crossOrigin": false})
	return b
}

// coseKey is the passkey's public key as a COSE_Key (EC2, ES256, P-256).
func (a *Authenticator) coseKey() ([]byte, error) {
	pub, err := a.key.PublicKey.Bytes() // 0x04 || x || y
	if err != nil {
		return nil, err
	}
	return cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: pub[1:33], -3: pub[33:]})
}

func (a *Authenticator) credential(response map[string]any) (string, error) {
	b, err := json.Marshal(map[string]any{
		"id": b64.EncodeToString(a.id), "rawId": b64.EncodeToString(a.id), "type": "public-key",
		"authenticatorAttachment": "platform", "response": response, "clientExtensionResults": map[string]any{},
	})
	return string(b), err
}
