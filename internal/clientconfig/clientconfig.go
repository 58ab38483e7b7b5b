// Package clientconfig writes the configuration each MCP client needs to
// reach Taskwire with a token, ready to paste: the console shows them
// when a token is made, and the first start prints some of them. Each
// client names the same things differently (url, serverUrl, httpUrl;
// mcpServers or servers), which is why they are kept in one place.
package clientconfig

import (
	"encoding/json"
	"strings"
)

// Snippet is one client's configuration.
type Snippet struct {
	Client string // e.g. "Cursor"
	Where  string // where it goes, e.g. "~/.cursor/mcp.json"
	Lang   string // "shell" or "json"
	Text   string
}

// ServerName is the name the snippets give Taskwire in each client.
const ServerName = "taskwire"

// For returns the snippets for a client reaching endpoint (the MCP
// endpoint's URL) with token, in the order a page shows them.
func For(endpoint, token string) []Snippet {
	auth := map[string]string{"Authorization": "Bearer " + token}
	return []Snippet{
		{Client: "Claude Code", Where: "a terminal, in your project", Lang: "shell",
			Text: "claude mcp add --transport http " + ServerName + " " + ShellQuote(endpoint) + " --header " + ShellQuote("Authorization: Bearer "+token)},
		{Client: "Cursor", Where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project)", Lang: "json",
			Text: jsonText(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{"url": endpoint, "headers": auth}}})},
		{Client: "VS Code", Where: ".vscode/mcp.json in your workspace", Lang: "json",
			Text: jsonText(map[string]any{"servers": map[string]any{ServerName: map[string]any{"type": "http", "url": endpoint, "headers": auth}}})},
		{Client: "Windsurf", Where: "~/.codeium/windsurf/mcp_config.json", Lang: "json",
			Text: jsonText(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{"serverUrl": endpoint, "headers": auth}}})},
		{Client: "Gemini CLI", Where: "~/.gemini/settings.json", Lang: "json",
			Text: jsonText(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{"httpUrl": endpoint, "headers": auth}}})},
		{Client: "taskwire-bridge (stdio clients such as Claude Desktop)", Where: "the client's MCP configuration, with the bridge's full path", Lang: "json",
			Text: jsonText(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{"command": "taskwire-bridge", "args": []string{},
				"env": map[string]string{"TASKWIRE_URL": endpoint, "TASKWIRE_TOKEN": token}}}})},
	}
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
