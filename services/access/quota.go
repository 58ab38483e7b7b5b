package access

import "google.golang.org/grpc/codes"

// ReasonQuotaExceeded marks a RESOURCE_EXHAUSTED status that a tenant's
// quota refused (internal/quota), as against one gRPC itself raised (a
// message too large): a quota's sentence is for the caller, who can act
// on it (delete, revoke, ask for more); retrying does not help.
const ReasonQuotaExceeded = "QUOTA_EXCEEDED"

// QuotaExceeded returns the status of a call a quota refused, with msg,
// the sentence saying what to do, as its message.
func QuotaExceeded(msg string) error {
	return reasoned(codes.ResourceExhausted, msg, ReasonQuotaExceeded, nil)
}

// IsQuotaExceeded reports whether err is a status made by QuotaExceeded.
func IsQuotaExceeded(err error) bool {
	reason, _ := reasonOf(err, codes.ResourceExhausted)
	return reason == ReasonQuotaExceeded
}
