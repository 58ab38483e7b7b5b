// Package caller is the map of the packages that deal with the caller of
// one call, in the order a call meets them; it holds no code itself.
//
//   - authn mints and verifies the JWT a caller presents (the front door
//     verifies; admin and the token commands mint).
//   - identity carries the verified caller (tenant, member, scopes, token
//     id) from the front door through gRPC metadata into the worker's
//     context, and beside it the caller's Access: the member's current
//     role, kind and sponsor, which the worker resolves once per call.
//   - callercache lets a worker answer "is this token still what was
//     issued?" and "what is this member now?" from memory, forgetting an
//     answer the moment a revocation or role change is announced.
//   - authz decides what a role and a set of scopes permit.
//
// services/access is the AccessService that returns the Access to the
// front door and the caller; tenants and members are created and looked
// up in internal/tenancy.
package caller
