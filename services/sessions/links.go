package sessions

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/signinlink"
)

// Lifetimes of sign-in links.
const (
	DefaultLinkTTL = 24 * time.Hour
	MaxLinkTTL     = 7 * 24 * time.Hour
	InvitationTTL  = 7 * 24 * time.Hour
)

// Link describes a one-time sign-in link to make.
type Link struct {
	Account int
	Purpose signinlink.Purpose
	// Tenant and Member name the member it is made for or invites; 0:
	// none. CreatedBy is the member who made it; 0: the first start or an
	// operator.
	Tenant, Member, CreatedBy int
	Expires                   time.Time
}

// CreateLink stores l in tx and returns its secret, which is not stored
// (only its SHA-256 is) and so is shown this once.
func CreateLink(ctx context.Context, tx *ent.Tx, l Link) (string, error) {
	secret := newSecret()
	create := tx.SignInLink.Create().
		SetSecretHash(hashSecret(secret)).SetAccountID(l.Account).SetPurpose(l.Purpose).
		SetExpiresAt(l.Expires.UTC().Truncate(time.Microsecond))
	if l.Tenant > 0 {
		create.SetTenantID(l.Tenant)
	}
	if l.Member > 0 {
		create.SetMemberID(l.Member)
	}
	if l.CreatedBy > 0 {
		create.SetCreatedBy(l.CreatedBy)
	}
	if err := create.Exec(ctx); err != nil {
		return "", err
	}
	return secret, nil
}

// LinkPath is the console's page of a sign-in link, under the public URL.
const LinkPath = "/signin/link"

// LinkURL is the address of the sign-in link with secret on the console at
// publicURL.
func LinkURL(publicURL, secret string) string {
	return strings.TrimRight(publicURL, "/") + LinkPath + "?k=" + url.QueryEscape(secret)
}
