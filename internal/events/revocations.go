package events

// RevocationsSubject carries token revocations to every front door, which
// refuse the tokens at once instead of waiting for their expiry.
const RevocationsSubject = "taskwire.revocations"

// Revocation is one revoked token, or every token of one member issued
// before a time. Front doors keep it until Expires: after that the tokens
// it covers are refused for having expired anyway.
type Revocation struct {
	// JTI names one revoked token (its JWT id).
	JTI string `json:"jti,omitempty"`
	// Tenant and Member name a member all of whose tokens issued before
	// Before are revoked, including tokens no front door ever saw.
	Tenant string `json:"tenant,omitempty"`
	Member int    `json:"member,omitempty"`
	Before int64  `json:"before,omitempty"` // unix seconds; tokens with iat < Before
	// Expires is when the entry may be forgotten (unix seconds): the
	// token's expiry, or the latest expiry of the member's tokens.
	Expires int64 `json:"exp"`
}

// Valid reports whether r names a token or a member, and an expiry.
func (r Revocation) Valid() bool {
	if r.Expires <= 0 {
		return false
	}
	if r.JTI != "" {
		return r.Tenant == "" && r.Member == 0 && r.Before == 0
	}
	return r.Tenant != "" && r.Member > 0 && r.Before > 0
}

// PublishRevocation tells every front door about a revocation. It returns
// once the NATS server has the message.
func (b *Bus) PublishRevocation(r Revocation) error {
	return publish(b.nc, RevocationsSubject, r)
}

// SubscribeRevocations calls fn with each valid revocation published by
// anyone; the subscription is in place when it returns.
func (b *Bus) SubscribeRevocations(fn func(Revocation)) (unsubscribe func(), err error) {
	return subscribe(b.nc, RevocationsSubject, Revocation.Valid, fn)
}
