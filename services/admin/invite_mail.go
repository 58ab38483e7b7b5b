package admin

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/services/sessions"
)

// emailInvitation emails the invitation with secret to email, when the
// deployment sends mail. It reports whether the mail server took it, and
// otherwise why not, in a sentence for the inviter (the details are
// logged, for the deployment's operators).
func (s *Service) emailInvitation(ctx context.Context, a actor, t *ent.Tenant, email, secret string, expires time.Time) (bool, string) {
	if s.mail == nil {
		return false, ""
	}
	msg, err := mail.Invitation{
		To: email, Tenant: cmp.Or(t.Name, t.Slug), Inviter: s.inviter(ctx, a),
		Link: sessions.LinkURL(s.linkBase, secret), Expires: expires,
	}.Message()
	if err == nil {
		// The invitation is stored: it is sent even if the inviter stops
		// waiting, within the sender's own timeout.
		err = s.mail.Send(context.WithoutCancel(ctx), msg)
	}
	if err != nil {
		s.log.WarnContext(ctx, "admin: emailing an invitation failed", "tenant", t.Slug, "err", err)
		return false, fmt.Sprintf("The invitation was not emailed to %s (%s): send them the link yourself.", email, mail.Reason(err))
	}
	return true, ""
}

// inviter names who invites in the email: the calling member, or the
// deployment's operators.
func (s *Service) inviter(ctx context.Context, a actor) string {
	if a.operator {
		return "The operators of this Taskwire deployment"
	}
	m, err := s.client.Member.Get(ctx, a.access.MemberID)
	if err != nil {
		return "A member"
	}
	return fmt.Sprintf("%s (%s)", cmp.Or(m.DisplayName, m.Handle), m.Handle)
}
