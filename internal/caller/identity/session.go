package identity

// SessionAccount is what checking a console caller's session tells of the
// account behind it: whether it is a platform operator, and who the
// person is, for logs and the audit log when they act as one.
type SessionAccount struct {
	Operator bool
	Person   string // the account's email, or "account N" when it has none
}
