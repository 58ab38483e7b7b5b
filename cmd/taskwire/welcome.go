package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"time"
)

// printWelcome shows the first token with configurations ready to paste.
func printWelcome(out io.Writer, endpoint, tenant, owner, board, token string, expires time.Time) {
	cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"taskwire": map[string]any{
		"type": "http", "url": endpoint,
		"headers": map[string]string{"Authorization": "Bearer " + token},
	}}}, "  ", "  ")
	fmt.Fprintf(out, `Taskwire is serving MCP at %s

First start: created tenant %q with owner %q and board %q.
The owner's MCP token is shown this once; keep it secret. It expires %s.

  %s

Claude Code:
  claude mcp add --transport http taskwire %s --header "Authorization: Bearer %s"

Any Streamable HTTP client (e.g. .mcp.json):
  %s

More tokens: taskwire token create --member <handle> --scopes read,comment,write

This token is for MCP only: it never administers. To manage members and tokens through
the admin API (taskwire admin), use the platform operator secret, or an admin token:
  taskwire token create --member %s --admin
`, endpoint, tenant, owner, board, expires.Format(time.DateOnly), token, endpoint, token, cfg, owner)
}

// redactDSN drops the password from a database URL for logs.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	return u.Redacted()
}
