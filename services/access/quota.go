package access

import (
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ReasonQuotaExceeded marks a RESOURCE_EXHAUSTED status that a tenant's
// quota refused (services/quota), as against one gRPC itself raised (a
// message too large): a quota's sentence is for the caller, who can act
// on it (delete, revoke, ask for more); retrying does not help.
const ReasonQuotaExceeded = "QUOTA_EXCEEDED"

// QuotaExceeded returns the status of a call a quota refused, with msg,
// the sentence saying what to do, as its message.
func QuotaExceeded(msg string) error {
	st := status.New(codes.ResourceExhausted, msg)
	if withInfo, err := st.WithDetails(&errdetails.ErrorInfo{Reason: ReasonQuotaExceeded, Domain: Domain}); err == nil {
		st = withInfo
	}
	return st.Err()
}

// IsQuotaExceeded reports whether err is a status made by QuotaExceeded.
func IsQuotaExceeded(err error) bool {
	var gs interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &gs) {
		return false
	}
	st := gs.GRPCStatus()
	if st.Code() != codes.ResourceExhausted {
		return false
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain && info.GetReason() == ReasonQuotaExceeded {
			return true
		}
	}
	return false
}
