package sessions

import "github.com/taskwire/taskwire/internal/domainerr"

// The answers to a failed sign-in or session check. Each says what to do;
// none tells an email that has an account from one that has none.
var (
	errBadCredentials = domainerr.New(domainerr.Unauthenticated,
		"The email or password is not right: check both and try again, or ask an owner or admin of your tenant for a sign-in link.")
	errDisabled = domainerr.New(domainerr.Unauthenticated,
		"This account is disabled and cannot sign in: ask an owner or admin of your tenant.")
	errBadLink = domainerr.New(domainerr.Unauthenticated,
		"This sign-in link is not valid: copy the whole link, or ask an owner or admin of your tenant for a new one.")
	errUsedLink = domainerr.New(domainerr.Unauthenticated,
		"This sign-in link was used already, and works only once: sign in with your password, or ask an owner or admin for a new link.")
	errBadCookie = domainerr.New(domainerr.Unauthenticated,
		"Your session is not known here: sign in again.")
	errEnded = domainerr.New(domainerr.Unauthenticated,
		"This session has ended (you signed out, or your password was changed): sign in again.")
	errAccountGone = domainerr.New(domainerr.Unauthenticated,
		"Your account was disabled, which ended its sessions: sign in again once an owner or admin has enabled it.")
	errBadPasskey = domainerr.New(domainerr.Unauthenticated,
		"This passkey did not sign you in: try again, use another passkey, or sign in another way.")
	errUnknownPasskey = domainerr.New(domainerr.Unauthenticated,
		"This passkey is not registered here (any more): sign in another way, then add it again on your account page.")
	errClonedPasskey = domainerr.New(domainerr.Unauthenticated,
		"This passkey's signature counter went back, so the authenticator may have been cloned: sign in another way and remove this passkey on your account page.")
)
