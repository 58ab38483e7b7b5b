package mail

import (
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"time"
	"unicode"
)

// Invitation is the email inviting a person to a tenant.
type Invitation struct {
	To      string    // the person's address
	Tenant  string    // the tenant's display name
	Inviter string    // who invited, e.g. "Alice (alice)"
	Link    string    // the one-time sign-in link
	Expires time.Time // when the link stops working
}

var invitationText = texttemplate.Must(texttemplate.New("text").Parse(
	`{{.Inviter}} invited you to {{.Tenant}} on Taskwire, a task board that people and AI assistants share.

Open this link to sign in and join:

{{.Link}}

The link works once, until {{.ExpiresText}}. If you did not expect this invitation, ignore this email: nothing happens unless the link is opened.
`))

var invitationHTML = htmltemplate.Must(htmltemplate.New("html").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Subject}}</title></head>
<body style="font-family: sans-serif; line-height: 1.5; max-width: 36em">
<p>{{.Inviter}} invited you to <strong>{{.Tenant}}</strong> on Taskwire, a task board that people and AI assistants share.</p>
<p><a href="{{.Link}}">Sign in and join {{.Tenant}}</a></p>
<p>The link works once, until {{.ExpiresText}}. If you did not expect this invitation, ignore this email: nothing happens unless the link is opened.</p>
</body></html>
`))

// invitationView is what the templates print.
type invitationView struct {
	Invitation
	Subject     string
	ExpiresText string
}

// Message is the email of inv: plain text and HTML, every name escaped
// in the HTML by html/template.
func (inv Invitation) Message() (Message, error) {
	inv.Tenant, inv.Inviter = oneLine(inv.Tenant), oneLine(inv.Inviter)
	v := invitationView{Invitation: inv, Subject: "You're invited to " + inv.Tenant + " on Taskwire",
		ExpiresText: inv.Expires.UTC().Format("Mon 2 Jan 2006 15:04 MST")}
	var text, html strings.Builder
	if err := invitationText.Execute(&text, v); err != nil {
		return Message{}, err
	}
	if err := invitationHTML.Execute(&html, v); err != nil {
		return Message{}, err
	}
	return Message{To: inv.To, Subject: v.Subject, Text: text.String(), HTML: html.String()}, nil
}

// oneLine replaces the control characters of a name (line breaks above
// all) by spaces, so it stays on the line it is printed on.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
