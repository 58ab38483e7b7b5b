// Package access is the AccessService: it returns the caller's Access
// (identity.Access, which the worker resolved for the call) to the front
// door (GetAccess, to list only the tools the caller may use) and to the
// caller (the whoami tool), and it holds the refusals the worker and the
// front door share (RoleForbids, InsufficientScope, ToolsetForbids,
// QuotaExceeded) with their reasons.
package access
