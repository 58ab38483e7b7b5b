package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/services/tokens"
)

// What `taskwire token list` prints, as a table or as JSON.

// listedToken is one token of `token list --json`.
type listedToken struct {
	tokens.Info
	State string `json:"state"` // live, revoked or expired
}

func printTokensJSON(w io.Writer, list []tokens.Info, now time.Time) error {
	out := make([]listedToken, len(list))
	for i, t := range list {
		out[i] = listedToken{Info: t, State: t.State(now)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func printTokens(w io.Writer, list []tokens.Info, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMEMBER\tSCOPES\tTOOLSETS\tLABEL\tCREATED\tEXPIRES\tLAST USED\tSTATE")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Member, scopesText(t.Admin, t.Scopes),
			authz.ToolsetsText(t.Toolsets), orDash(t.Label), shortTime(&t.CreatedAt), shortTime(&t.ExpiresAt), shortTime(t.LastUsedAt), t.State(now))
	}
	return tw.Flush()
}

func shortTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
