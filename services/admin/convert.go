package admin

import (
	"encoding/base64"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/services/tokens"
)

var (
	roles = map[taskwirev1.MemberRole]member.Role{
		taskwirev1.MemberRole_MEMBER_ROLE_OWNER:  member.RoleOwner,
		taskwirev1.MemberRole_MEMBER_ROLE_ADMIN:  member.RoleAdmin,
		taskwirev1.MemberRole_MEMBER_ROLE_MEMBER: member.RoleMember,
		taskwirev1.MemberRole_MEMBER_ROLE_VIEWER: member.RoleViewer,
	}
	kinds = map[taskwirev1.MemberKind]member.Kind{
		taskwirev1.MemberKind_MEMBER_KIND_HUMAN:     member.KindHuman,
		taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT: member.KindAssistant,
	}
	tokenStates = map[string]adminv1.TokenState{
		tokens.StateLive:    adminv1.TokenState_TOKEN_STATE_LIVE,
		tokens.StateRevoked: adminv1.TokenState_TOKEN_STATE_REVOKED,
		tokens.StateExpired: adminv1.TokenState_TOKEN_STATE_EXPIRED,
	}
)

// roleFromProto maps a role of the API to ent's; unspecified gives def.
func roleFromProto(v taskwirev1.MemberRole, def member.Role) (member.Role, error) {
	if v == taskwirev1.MemberRole_MEMBER_ROLE_UNSPECIFIED {
		return def, nil
	}
	if r, ok := roles[v]; ok {
		return r, nil
	}
	return "", domainerr.New(domainerr.Invalid, "role %d is not valid: use MEMBER_ROLE_OWNER, _ADMIN, _MEMBER or _VIEWER", v)
}

// kindFromProto maps a member kind of the API to ent's; unspecified is a
// person.
func kindFromProto(v taskwirev1.MemberKind) (member.Kind, error) {
	if v == taskwirev1.MemberKind_MEMBER_KIND_UNSPECIFIED {
		return member.KindHuman, nil
	}
	if k, ok := kinds[v]; ok {
		return k, nil
	}
	return "", domainerr.New(domainerr.Invalid, "kind %d is not valid: use MEMBER_KIND_HUMAN or MEMBER_KIND_ASSISTANT", v)
}

func roleToProto(r member.Role) taskwirev1.MemberRole {
	for p, e := range roles {
		if e == r {
			return p
		}
	}
	return taskwirev1.MemberRole_MEMBER_ROLE_UNSPECIFIED
}

func kindToProto(k member.Kind) taskwirev1.MemberKind {
	for p, e := range kinds {
		if e == k {
			return p
		}
	}
	return taskwirev1.MemberKind_MEMBER_KIND_UNSPECIFIED
}

func tenantToProto(t *ent.Tenant) *adminv1.Tenant {
	return &adminv1.Tenant{Slug: t.Slug, Name: t.Name, CreateTime: timestamppb.New(t.CreatedAt)}
}

// memberToProto converts m, whose sponsor edge is loaded when it has one.
func memberToProto(m *ent.Member) *adminv1.Member {
	out := &adminv1.Member{
		Id: int64(m.ID), Handle: m.Handle, DisplayName: m.DisplayName,
		Kind: kindToProto(m.Kind), Role: roleToProto(m.Role),
		CreateTime: timestamppb.New(m.CreatedAt), RemoveTime: optionalTime(m.RemovedAt),
	}
	if sp := m.Edges.Sponsor; sp != nil {
		out.Sponsor = sp.Handle
	}
	return out
}

func tokenToProto(i tokens.Info, now time.Time) *adminv1.Token {
	return &adminv1.Token{
		Id: i.ID, Member: i.Member, Scopes: i.Scopes, Toolsets: i.Toolsets, Label: i.Label,
		CreateTime: timestamppb.New(i.CreatedAt), ExpireTime: timestamppb.New(i.ExpiresAt),
		LastUseTime: optionalTime(i.LastUsedAt), RevokeTime: optionalTime(i.RevokedAt),
		State: tokenStates[i.State(now)], Admin: i.Admin,
	}
}

func optionalTime(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

// ttlFromProto is a token lifetime: 0 (the default) when unset. Zero or
// less is refused, naming the maximum (the token store refuses more).
func ttlFromProto(d *durationpb.Duration, field string, max time.Duration) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	if err := d.CheckValid(); err != nil || d.AsDuration() <= 0 {
		return 0, domainerr.New(domainerr.Invalid,
			"%s must be a positive duration, at most %s on this server (--max-token-ttl), e.g. \"720h\", in JSON \"2592000s\"; leave it out for the default",
			field, authn.FormatTTL(max))
	}
	return d.AsDuration(), nil
}

// Pages. A page token is opaque to clients: the last key of the page
// before, base64url, so a page is stable while rows are added.

const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// pageSize is the size asked for, bounded.
func pageSize(n int32) (int, error) {
	switch {
	case n < 0:
		return 0, domainerr.New(domainerr.Invalid, "page_size must not be negative")
	case n == 0:
		return defaultPageSize, nil
	case n > maxPageSize:
		return maxPageSize, nil
	}
	return int(n), nil
}

func encodePage(key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(key))
}

func decodePage(tok string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) == 0 {
		return "", badPage()
	}
	return string(b), nil
}

func badPage() error {
	return domainerr.New(domainerr.Invalid, "page_token is not one this server gave: pass next_page_token as it came")
}
