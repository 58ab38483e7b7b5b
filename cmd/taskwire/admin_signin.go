package main

import (
	"errors"
	"fmt"
	"time"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/services/sessions"
)

// The commands of `taskwire admin` that let people into the console:
// signin-link and invite. Each prints the link alone on stdout, so it can
// be captured, and what to do with it on stderr.

func (a *adminCmd) signinLink(args []string) error {
	handle := a.fs.String("member", "", "handle of the person to sign in (required)")
	ttl := a.fs.Duration("ttl", 0, "how long the link works, at most 168h (default 24h)")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	if *handle == "" {
		return errors.New("name the person to sign in with --member HANDLE")
	}
	if isSet(a.fs, "ttl") && (*ttl <= 0 || *ttl > sessions.MaxLinkTTL) {
		return fmt.Errorf("--ttl %v: a sign-in link works for a positive time, at most 168h (7 days); leave --ttl out for 24h", *ttl)
	}
	resp := &adminv1.CreateSignInLinkResponse{}
	if err := a.call("CreateSignInLink", &adminv1.CreateSignInLinkRequest{Tenant: a.tenant, Handle: *handle, Ttl: ttlProto(*ttl)}, resp); err != nil {
		return memberHint(err)
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	fmt.Fprintln(a.stdout, sessions.LinkURL(a.url, resp.GetSecret()))
	fmt.Fprintf(a.stderr, "Give this link to %s, privately: opened in a browser, it signs them in to the console once, until %s.\n",
		resp.GetMember().GetHandle(), resp.GetExpireTime().AsTime().Local().Format(time.DateTime))
	return nil
}

func (a *adminCmd) invite(args []string) error {
	email := a.fs.String("email", "", "the person's email, which they will sign in with (required)")
	role := a.fs.String("role", "member", "owner, admin, member or viewer")
	name := a.fs.String("name", "", "the person's display name (default the email's local part)")
	handle := a.fs.String("handle", "", "the new member's handle (default derived from the email)")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	if *email == "" {
		return errors.New("name the person to invite with --email ADDRESS")
	}
	r, err := parseRole(*role)
	if err != nil {
		return fmt.Errorf("--role: %w", err)
	}
	resp := &adminv1.InvitePersonResponse{}
	if err := a.call("InvitePerson", &adminv1.InvitePersonRequest{Tenant: a.tenant, Email: *email, DisplayName: *name, Role: r, Handle: *handle}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	fmt.Fprintln(a.stdout, sessions.LinkURL(a.url, resp.GetSecret()))
	m := resp.GetMember()
	fmt.Fprintf(a.stderr, "Invited %s as %s (%s). %s It works once, until %s.\n",
		*email, m.GetHandle(), *role, emailed(resp, *email), resp.GetExpireTime().AsTime().Local().Format(time.DateTime))
	return nil
}

// emailed says whether the invitation went by email, and if not, why.
func emailed(resp *adminv1.InvitePersonResponse, email string) string {
	switch {
	case resp.GetEmailed():
		return "The link was emailed to " + email + "."
	case resp.GetEmailError() != "":
		return resp.GetEmailError()
	}
	return "No email was sent (the deployment has no mail server): send them this link yourself."
}
