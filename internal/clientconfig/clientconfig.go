// Package clientconfig writes what each MCP client needs to reach
// Taskwire, ready to paste, in both ways in: with a token (For) and by
// signing in with OAuth (OAuthFor). The console shows them on its
// Connect and Tokens pages, and the first start prints some of them.
// Each client names the same things differently (url, serverUrl,
// httpUrl; mcpServers or servers), which is why they are kept in one
// place.
package clientconfig

import (
	"encoding/json"
	"strings"
)

// Snippet is one client's configuration.
type Snippet struct {
	Client string // e.g. "Cursor"
	Where  string // where it goes, e.g. "~/.cursor/mcp.json"
	Lang   string // "shell", "json", or "url" (the endpoint alone, to paste in a form)
	Text   string
	// Then is what to do once it is pasted, e.g. sign in from the
	// client; empty when pasting is all.
	Then string
}

// ServerName is the name the snippets give Taskwire in each client.
const ServerName = "taskwire"

// For returns the snippets for a client reaching endpoint (the MCP
// endpoint's URL) with token, in the order a page shows them.
func For(endpoint, token string) []Snippet {
	auth := map[string]string{"Authorization": "Bearer " + token}
	return []Snippet{
		{Client: "Claude Code", Where: "a terminal, in your project", Lang: "shell",
			Text: ClaudeCode(endpoint, token)},
		{Client: "Cursor", Where: cursorFile, Lang: "json", Text: jsonText(cursor(endpoint, auth))},
		{Client: "VS Code", Where: vscodeFile, Lang: "json", Text: jsonText(vscode(endpoint, auth))},
		{Client: "Windsurf", Where: windsurfFile, Lang: "json", Text: jsonText(windsurf(endpoint, auth))},
		{Client: "Gemini CLI", Where: geminiFile, Lang: "json", Text: jsonText(gemini(endpoint, auth))},
		{Client: "taskwire-bridge (stdio clients such as Claude Desktop)", Where: "the client's MCP configuration, with the bridge's full path", Lang: "json",
			Text: jsonText(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{"command": "taskwire-bridge", "args": []string{},
				"env": map[string]string{"TASKWIRE_URL": endpoint, "TASKWIRE_TOKEN": token}}}})},
	}
}

// OAuthFor returns, in the order a page shows them, how each client
// reaches endpoint by signing in: the same configuration as For without
// a header, or the endpoint alone for the clients configured in a form.
// The client then finds Taskwire's authorization server from the 401 and
// opens the browser on the console's consent page. taskwire-bridge is
// not here: it takes tokens only.
func OAuthFor(endpoint string) []Snippet {
	return []Snippet{
		{Client: "Claude.ai and Claude Desktop", Where: "Settings → Connectors → Add custom connector, as the server URL", Lang: "url",
			Text: endpoint, Then: "Press Connect, sign in to Taskwire and approve. " + hosted},
		{Client: "ChatGPT (developer mode)", Where: "Settings → Apps & Connectors → Create, as the MCP server URL, with OAuth authentication", Lang: "url",
			Text: endpoint, Then: "Create it, then sign in to Taskwire and approve when ChatGPT opens the page. " + hosted},
		{Client: "Claude Code", Where: "a terminal, in your project", Lang: "shell",
			Text: ClaudeCode(endpoint, ""), Then: "Then run /mcp in Claude Code, pick " + ServerName + " and sign in."},
		{Client: "Cursor", Where: cursorFile, Lang: "json", Text: jsonText(cursor(endpoint, nil)),
			Then: "Cursor lists the server as needing a sign-in: press Connect."},
		{Client: "VS Code", Where: vscodeFile, Lang: "json", Text: jsonText(vscode(endpoint, nil)),
			Then: "Start the server; VS Code asks you to sign in."},
		{Client: "Windsurf", Where: windsurfFile, Lang: "json", Text: jsonText(windsurf(endpoint, nil)),
			Then: "Refresh the MCP servers; Windsurf opens the browser to sign in."},
		{Client: "Gemini CLI", Where: geminiFile, Lang: "json", Text: jsonText(gemini(endpoint, nil)),
			Then: "Then run /mcp auth " + ServerName + " in Gemini CLI."},
		{Client: "MCP Inspector", Where: "npx @modelcontextprotocol/inspector, transport Streamable HTTP, as the URL", Lang: "url",
			Text: endpoint, Then: "Open its authentication settings and run the OAuth flow."},
	}
}

// hosted warns that a client run by its maker reaches Taskwire from the
// internet, not from the person's machine.
const hosted = "Its servers connect from the internet, so Taskwire must be reachable there over https."

// Where each client keeps its servers.
const (
	cursorFile   = "~/.cursor/mcp.json (or .cursor/mcp.json in a project)"
	vscodeFile   = ".vscode/mcp.json in your workspace"
	windsurfFile = "~/.codeium/windsurf/mcp_config.json"
	geminiFile   = "~/.gemini/settings.json"
)

// ClaudeCode is Claude Code's command adding Taskwire at endpoint: with
// token, sent as a header; with none, to sign in (OAuth) from Claude Code.
func ClaudeCode(endpoint, token string) string {
	cmd := "claude mcp add --transport http " + ServerName + " " + ShellQuote(endpoint)
	if token != "" {
		cmd += " --header " + ShellQuote("Authorization: Bearer "+token)
	}
	return cmd
}

func cursor(endpoint string, headers map[string]string) map[string]any {
	return servers("mcpServers", map[string]any{"url": endpoint}, headers)
}

func vscode(endpoint string, headers map[string]string) map[string]any {
	return servers("servers", map[string]any{"type": "http", "url": endpoint}, headers)
}

func windsurf(endpoint string, headers map[string]string) map[string]any {
	return servers("mcpServers", map[string]any{"serverUrl": endpoint}, headers)
}

func gemini(endpoint string, headers map[string]string) map[string]any {
	return servers("mcpServers", map[string]any{"httpUrl": endpoint}, headers)
}

// servers is a client's file holding Taskwire under key, with headers
// when there are any (a token) and none for OAuth: a header there would
// stop some clients from signing in.
func servers(key string, server map[string]any, headers map[string]string) map[string]any {
	if headers != nil {
		server["headers"] = headers
	}
	return map[string]any{key: map[string]any{ServerName: server}}
}

// jsonText is v as indented JSON. Maps marshal in key order, so the text
// is the same every time.
func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return string(b)
}

// ShellQuote quotes s for a POSIX shell when it holds anything but the
// characters URLs and paths are usually made of.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
