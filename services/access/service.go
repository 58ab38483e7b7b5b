package access

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// Service implements taskwirev1.AccessServiceServer from the Access the
// worker resolved for the call: it needs no database of its own, save for
// the quota use whoami reports, which Config.Quota reads.
type Service struct {
	taskwirev1.UnimplementedAccessServiceServer
	quota QuotaReader
}

var _ taskwirev1.AccessServiceServer = (*Service)(nil)

// QuotaReader tells how much of its quotas the tenant of a caller uses;
// *quota.Reader is one. A nil Quota means no quotas.
type QuotaReader interface {
	Usage(ctx context.Context, a identity.Access) (*taskwirev1.Quota, error)
}

// Config holds what a Service needs; the zero value serves whoami with no
// quotas.
type Config struct {
	Quota QuotaReader
}

// New returns a Service for cfg.
func New(cfg Config) *Service { return &Service{quota: cfg.Quota} }

// Register adds the service to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterAccessServiceServer(r, s)
}

// errNoAccess is a worker serving this service without an access resolver:
// a deployment mistake, which the worker reports as Internal.
var errNoAccess = errors.New("access: no Access in the call's context; the worker needs an access resolver")

// GetAccess returns the caller's membership.
func (s *Service) GetAccess(ctx context.Context, _ *taskwirev1.GetAccessRequest) (*taskwirev1.GetAccessResponse, error) {
	a, ok := identity.AccessFrom(ctx)
	if !ok {
		return nil, errNoAccess
	}
	return &taskwirev1.GetAccessResponse{
		Tenant: a.Tenant, Handle: a.Handle, DisplayName: a.DisplayName,
		Kind: Kinds[a.Kind], Role: Roles[a.Role], Sponsor: a.Sponsor,
	}, nil
}

// Whoami returns the caller's membership, the token's scopes, what the
// two allow together, the rate budget the front door sent, and the
// tenant's quota use.
func (s *Service) Whoami(ctx context.Context, _ *taskwirev1.WhoamiRequest) (*taskwirev1.WhoamiResponse, error) {
	a, ok := identity.AccessFrom(ctx)
	c, idOK := identity.FromContext(ctx)
	if !ok || !idOK {
		return nil, errNoAccess
	}
	var quota *taskwirev1.Quota
	if s.quota != nil {
		var err error
		if quota, err = s.quota.Usage(ctx, a); err != nil {
			return nil, err
		}
	}
	return &taskwirev1.WhoamiResponse{
		Tenant: a.Tenant, Handle: a.Handle, DisplayName: a.DisplayName,
		Kind: Kinds[a.Kind], Role: Roles[a.Role], Sponsor: a.Sponsor,
		Scopes:   c.Scopes,
		Allowed:  authz.Permitted(a.Role, c.Scopes),
		Summary:  Summary(a, c.Scopes),
		Budget:   rateBudget(ctx),
		Toolsets: c.Toolsets,
		Quota:    quota,
	}, nil
}

// rateBudget is the budget the front door sent with the call, nil when
// it sent none: only the front door knows the rate limits.
func rateBudget(ctx context.Context) *taskwirev1.RateBudget {
	b, ok := BudgetFromIncoming(ctx)
	if !ok {
		return nil
	}
	return &taskwirev1.RateBudget{Token: rateLimit(b.Token), Tenant: rateLimit(b.Tenant)}
}

func rateLimit(l *BudgetLevel) *taskwirev1.RateLimit {
	if l == nil {
		return nil
	}
	return &taskwirev1.RateLimit{Remaining: int32(l.Remaining), PerSecond: l.PerSecond, Burst: int32(l.Burst)}
}

// Kinds and Roles map the database's words onto the API's enums.
var (
	Kinds = map[string]taskwirev1.MemberKind{
		"human":     taskwirev1.MemberKind_MEMBER_KIND_HUMAN,
		"assistant": taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT,
	}
	Roles = map[string]taskwirev1.MemberRole{
		authz.RoleOwner:  taskwirev1.MemberRole_MEMBER_ROLE_OWNER,
		authz.RoleAdmin:  taskwirev1.MemberRole_MEMBER_ROLE_ADMIN,
		authz.RoleMember: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER,
		authz.RoleViewer: taskwirev1.MemberRole_MEMBER_ROLE_VIEWER,
	}
)

// RoleName returns the word of an API role, e.g. "viewer", or "" for
// MEMBER_ROLE_UNSPECIFIED.
func RoleName(r taskwirev1.MemberRole) string {
	for name, v := range Roles {
		if v == r {
			return name
		}
	}
	return ""
}

// Summary says in one sentence who a is and what the role and the token
// holding scopes allow, so a model can tell which of the two limits it.
func Summary(a identity.Access, scopes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s (%s), %s %s on tenant %s.", a.Handle, a.DisplayName, authz.Article(a.Role), a.Role, a.Tenant)
	if a.Kind == "assistant" && a.Sponsor != "" {
		fmt.Fprintf(&b, " You are an assistant sponsored by %s.", a.Sponsor)
	}
	var token []string
	for _, s := range authz.AllScopes {
		if authz.Allows(scopes, s) {
			token = append(token, s)
		}
	}
	may := "do nothing"
	if allowed := authz.Permitted(a.Role, scopes); len(allowed) > 0 {
		may = list(allowed)
	}
	fmt.Fprintf(&b, " Your role allows %s; your token allows %s; so you may %s.",
		list(authz.Permitted(a.Role, authz.AllScopes)), list(token), may)
	return b.String()
}

// list joins words as prose: "read, comment and write", "nothing" for none.
func list(words []string) string {
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
