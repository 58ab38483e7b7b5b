package worker

import (
	"context"
	"strings"

	"google.golang.org/grpc"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/services/access"
)

// Disk tells whether the disk of the worker's database is full, and so
// writes are to be refused before they are tried (store.Reserve is one).
type Disk interface {
	Full() bool
}

// readVerbs start the names of the methods that are no tool and only
// read: every other such method is taken to write.
var readVerbs = []string{"Get", "List", "Search", "Check", "Whoami", "Complete", "Export"}

// writes reports whether the method named by rule may save something on
// the board or in the tenant: a tool needing the write or comment scope,
// or a method that is no tool (the admin API, the console's sign-in,
// OAuth) whose name is no read's. One this cannot describe writes.
func writes(rule methods.Rule) bool {
	if rule.IsTool {
		return authz.Allows([]string{rule.Scope}, authz.ScopeComment)
	}
	for _, verb := range readVerbs {
		if strings.HasPrefix(rule.Name, verb) {
			return false
		}
	}
	return true
}

// refuseWrites is the full disk's interceptor: while Config.Disk is
// Full, a call that writes is answered with access.DiskFull before it
// touches the database, so it is never half done, while reads go on,
// their audit rows written in the room the store's reserve freed. It sits
// after scope and role, so that a call refused by those is told why,
// and after audit, so that the refusal is recorded as any other.
func (s *Server) refuseWrites(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.cfg.Disk == nil || s.callerless(info.FullMethod) || !s.cfg.Disk.Full() {
		return handler(ctx, req)
	}
	rule, err := methods.Lookup(info.FullMethod)
	if err != nil || writes(rule) {
		return nil, access.DiskFull()
	}
	return handler(ctx, req)
}
