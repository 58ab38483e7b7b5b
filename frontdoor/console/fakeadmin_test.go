package console

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// fakeAdmin serves AdminService from memory with the rules the console
// relies on: assistants are at most members, and every call records its
// caller's metadata.
type fakeAdmin struct {
	adminv1.UnimplementedAdminServiceServer

	mu      sync.Mutex
	members []*adminv1.Member
	tokens  []*adminv1.Token
	callers []metadata.MD
	nextID  int
}

const (
	fakeInvite = "INVITE-SECRET"
	fakeToken  = "tw_FAKE.TOKEN"
)

var (
	person    = taskwirev1.MemberKind_MEMBER_KIND_HUMAN
	assistant = taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT
)

func newFakeAdmin() *fakeAdmin {
	return &fakeAdmin{
		members: []*adminv1.Member{
			{Id: 1, Handle: "olga", DisplayName: "Olga Owner", Kind: person, Role: taskwirev1.MemberRole_MEMBER_ROLE_OWNER},
			{Id: 7, Handle: "ada", DisplayName: "Ada", Kind: person, Role: taskwirev1.MemberRole_MEMBER_ROLE_VIEWER},
			{Id: 8, Handle: "bot", DisplayName: hostileTitle, Kind: assistant, Role: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER, Sponsor: "ada"},
		},
		tokens: []*adminv1.Token{
			{Id: "tok-olga", Member: "olga", Scopes: []string{"read"}, Label: "olga laptop", State: adminv1.TokenState_TOKEN_STATE_LIVE},
		},
	}
}

// enter records a call's caller and holds f.mu until unlock.
func (f *fakeAdmin) enter(ctx context.Context) (unlock func()) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.callers = append(f.callers, md)
	return f.mu.Unlock
}

// find returns the member with handle; f.mu is held.
func (f *fakeAdmin) find(handle string) (*adminv1.Member, error) {
	i := slices.IndexFunc(f.members, func(m *adminv1.Member) bool { return m.GetHandle() == handle })
	if i < 0 {
		return nil, status.Errorf(codes.NotFound, "There is no member %s in acme.", handle)
	}
	return f.members[i], nil
}

func (f *fakeAdmin) ListMembers(ctx context.Context, _ *adminv1.ListMembersRequest) (*adminv1.ListMembersResponse, error) {
	defer f.enter(ctx)()
	return &adminv1.ListMembersResponse{Members: slices.Clone(f.members)}, nil
}

func (f *fakeAdmin) AddMember(ctx context.Context, req *adminv1.AddMemberRequest) (*adminv1.AddMemberResponse, error) {
	defer f.enter(ctx)()
	if _, err := f.find(req.GetHandle()); err == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "The handle %s is taken: pick another.", req.GetHandle())
	}
	m := &adminv1.Member{Id: int64(100 + len(f.members)), Handle: req.GetHandle(), DisplayName: req.GetDisplayName(),
		Kind: req.GetKind(), Role: req.GetRole(), Sponsor: req.GetSponsor()}
	f.members = append(f.members, m)
	return &adminv1.AddMemberResponse{Member: m}, nil
}

func (f *fakeAdmin) SetMemberRole(ctx context.Context, req *adminv1.SetMemberRoleRequest) (*adminv1.SetMemberRoleResponse, error) {
	defer f.enter(ctx)()
	m, err := f.find(req.GetHandle())
	if err != nil {
		return nil, err
	}
	if m.GetKind() == assistant && req.GetRole() < taskwirev1.MemberRole_MEMBER_ROLE_MEMBER {
		return nil, status.Errorf(codes.InvalidArgument, "%s is an assistant, and assistants are at most members: pick member or viewer.", m.GetHandle())
	}
	m.Role = req.GetRole()
	return &adminv1.SetMemberRoleResponse{Member: m}, nil
}

func (f *fakeAdmin) RemoveMember(ctx context.Context, req *adminv1.RemoveMemberRequest) (*adminv1.RemoveMemberResponse, error) {
	defer f.enter(ctx)()
	m, err := f.find(req.GetHandle())
	if err != nil {
		return nil, err
	}
	f.members = slices.DeleteFunc(f.members, func(x *adminv1.Member) bool { return x == m })
	return &adminv1.RemoveMemberResponse{Member: m}, nil
}

func (f *fakeAdmin) InvitePerson(ctx context.Context, req *adminv1.InvitePersonRequest) (*adminv1.InvitePersonResponse, error) {
	defer f.enter(ctx)()
	m := &adminv1.Member{Id: int64(100 + len(f.members)), Handle: "pat", DisplayName: req.GetEmail(), Kind: person, Role: req.GetRole()}
	f.members = append(f.members, m)
	return &adminv1.InvitePersonResponse{Member: m, Secret: fakeInvite}, nil
}

func (f *fakeAdmin) CreateToken(ctx context.Context, req *adminv1.CreateTokenRequest) (*adminv1.CreateTokenResponse, error) {
	defer f.enter(ctx)()
	if len(req.GetScopes()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "name at least one scope: read, comment, write")
	}
	f.nextID++
	t := &adminv1.Token{Id: fmt.Sprintf("tok-%d", f.nextID), Member: req.GetMember(), Scopes: req.GetScopes(), Toolsets: req.GetToolsets(),
		Label: req.GetLabel(), State: adminv1.TokenState_TOKEN_STATE_LIVE, CreateTime: timestamppb.Now(),
		ExpireTime: timestamppb.New(timestamppb.Now().AsTime().Add(req.GetTtl().AsDuration()))}
	f.tokens = append(f.tokens, t)
	return &adminv1.CreateTokenResponse{Token: fakeToken, Info: t}, nil
}

func (f *fakeAdmin) ListTokens(ctx context.Context, _ *adminv1.ListTokensRequest) (*adminv1.ListTokensResponse, error) {
	defer f.enter(ctx)()
	return &adminv1.ListTokensResponse{Tokens: slices.Clone(f.tokens)}, nil
}

func (f *fakeAdmin) RevokeToken(ctx context.Context, req *adminv1.RevokeTokenRequest) (*adminv1.RevokeTokenResponse, error) {
	defer f.enter(ctx)()
	for _, t := range f.tokens {
		if t.GetId() == req.GetId() {
			if t.GetMember() != "ada" && t.GetMember() != "bot" {
				return nil, status.Error(codes.PermissionDenied, "You may revoke tokens of yourself and the assistants you sponsor only.")
			}
			t.State = adminv1.TokenState_TOKEN_STATE_REVOKED
			return &adminv1.RevokeTokenResponse{}, nil
		}
	}
	return nil, status.Errorf(codes.NotFound, "no token %q in tenant acme", req.GetId())
}

// lastIdentity is the member and the credential kind the last admin call
// named; 0 and "" when there was none.
func (f *fakeAdmin) lastIdentity() (member int, kind string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.callers) == 0 {
		return 0, ""
	}
	md := f.callers[len(f.callers)-1]
	c, err := identityOf(metadata.NewIncomingContext(context.Background(), md))
	if err != nil || len(md.Get(identity.MDKind)) == 0 {
		return 0, ""
	}
	return c.Member, md.Get(identity.MDKind)[0]
}
