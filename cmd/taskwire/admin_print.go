package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
)

// Tables of `taskwire admin`, aligned with text/tabwriter.

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

func printTenants(w io.Writer, list []*adminv1.Tenant) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "SLUG\tNAME\tCREATED")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.GetSlug(), t.GetName(), stamp(t.GetCreateTime()))
	}
	return tw.Flush()
}

func printMembers(w io.Writer, list []*adminv1.Member) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "HANDLE\tNAME\tKIND\tROLE\tSPONSOR\tADDED\tREMOVED")
	for _, m := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.GetHandle(), m.GetDisplayName(),
			enumWord(m.GetKind().String(), "MEMBER_KIND_"), enumWord(m.GetRole().String(), "MEMBER_ROLE_"),
			orDash(m.GetSponsor()), stamp(m.GetCreateTime()), stamp(m.GetRemoveTime()))
	}
	return tw.Flush()
}

func printAdminTokens(w io.Writer, list []*adminv1.Token) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "ID\tMEMBER\tSCOPES\tTOOLSETS\tLABEL\tCREATED\tEXPIRES\tLAST USED\tSTATE")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.GetId(), t.GetMember(), scopesText(t.GetAdmin(), t.GetScopes()),
			authz.ToolsetsText(t.GetToolsets()), orDash(t.GetLabel()), stamp(t.GetCreateTime()), stamp(t.GetExpireTime()), stamp(t.GetLastUseTime()),
			enumWord(t.GetState().String(), "TOKEN_STATE_"))
	}
	return tw.Flush()
}

// scopesText is the SCOPES column of a token: "admin" for an admin token,
// which has none and acts by the member's role on the admin API.
func scopesText(admin bool, scopes []string) string {
	if admin {
		return "admin"
	}
	return strings.Join(scopes, ",")
}

// enumWord is an enum value as people say it: MEMBER_ROLE_ADMIN → admin.
func enumWord(v, prefix string) string {
	return strings.ToLower(strings.TrimPrefix(v, prefix))
}

// stamp is a time as the token commands show it, or "-" when absent.
func stamp(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return "-"
	}
	t := ts.AsTime()
	return shortTime(&t)
}
