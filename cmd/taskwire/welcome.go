package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/taskwire/taskwire/internal/clientconfig"
)

// printWelcome shows the owner's one-time sign-in link to the console,
// and the first token with configurations ready to paste. Its token
// commands name dataDir unless it is the default, so that they work as
// printed when serve was started with another --data.
func printWelcome(out io.Writer, endpoint, dataDir, tenant, owner, board, token string, expires time.Time, signInLink string) {
	data := ""
	if dataDir != defaultDataDir {
		data = " --data " + clientconfig.ShellQuote(dataDir)
	}
	cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"taskwire": map[string]any{
		"type": "http", "url": endpoint,
		"headers": map[string]string{"Authorization": "Bearer " + token},
	}}}, "  ", "  ")
	fmt.Fprintf(out, `Taskwire is serving MCP at %s

First start: created tenant %q with owner %q and board %q.

Open this link in your browser to sign in to the console; it works once, for 24 hours.
  %s

The owner's MCP token is shown this once; keep it secret. It expires %s.

  %s

Claude Code:
  %s

Any Streamable HTTP client (e.g. .mcp.json):
  %s

Or connect by signing in, with no token to copy: give your assistant the URL alone,
e.g. for Claude Code:
  %s
and approve in the browser page it opens (docs/oauth.md has each client's way).

More tokens: taskwire token create%s --member <handle> --scopes read,comment,write

This token is for MCP only: it never administers. To manage members and tokens through
the admin API (taskwire admin), use the platform operator secret, or an admin token:
  taskwire token create%s --member %s --admin
`, endpoint, tenant, owner, board, signInLink, expires.Format(time.DateOnly), token, clientconfig.ClaudeCode(endpoint, token), cfg, clientconfig.ClaudeCode(endpoint, ""), data, data, owner)
}

// redactDSN drops the password from a database URL for logs.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	return u.Redacted()
}
