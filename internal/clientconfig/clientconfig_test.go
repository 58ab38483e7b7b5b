package clientconfig_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/clientconfig"
)

const (
	endpoint = "https://board.example.com/api/mcp"
	token    = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiIxIn0.c2ln"
)

// TestEveryClientGetsEndpointAndToken: each snippet names the endpoint
// and the token where its client reads them, and the JSON ones parse.
func TestEveryClientGetsEndpointAndToken(t *testing.T) {
	got := clientconfig.For(endpoint, token)
	want := map[string]string{"Claude Code": "", "Cursor": "url", "VS Code": "url", "Windsurf": "serverUrl", "Gemini CLI": "httpUrl"}
	for _, s := range got {
		if !strings.Contains(s.Text, endpoint) || !strings.Contains(s.Text, token) {
			t.Errorf("%s: %s lacks the endpoint or the token", s.Client, s.Text)
		}
		if s.Lang != "json" {
			continue
		}
		var v map[string]map[string]map[string]any
		if err := json.Unmarshal([]byte(s.Text), &v); err != nil {
			t.Errorf("%s: not JSON: %v\n%s", s.Client, err, s.Text)
			continue
		}
		for _, servers := range v {
			server := servers[clientconfig.ServerName]
			if key, ok := want[s.Client]; ok && server[key] != endpoint {
				t.Errorf("%s: %s = %v, want %s", s.Client, key, server[key], endpoint)
			}
		}
		delete(want, s.Client)
	}
	delete(want, "Claude Code")
	if len(want) > 0 {
		t.Errorf("no snippet for %v", want)
	}
}

// TestShellLineSurvivesTheShell: the Claude Code line, run through a
// real shell, passes the endpoint and header as single arguments, even
// with characters a shell would act on.
func TestShellLineSurvivesTheShell(t *testing.T) {
	odd := "http://127.0.0.1:8080/api/mcp?x=$HOME&y='1'"
	line := clientconfig.For(odd, token)[0].Text
	out, err := exec.Command("sh", "-c", `claude() { for a in "$@"; do printf '%s\n' "$a"; done; }; `+line).Output()
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	wantArgs := []string{"mcp", "add", "--transport", "http", "taskwire", odd, "--header", "Authorization: Bearer " + token}
	if strings.Join(args, "|") != strings.Join(wantArgs, "|") {
		t.Errorf("the shell saw %q, want %q", args, wantArgs)
	}
}

// TestOAuthWayHasNoHeader: each client's way of signing in names the
// endpoint where its client reads it, the same key as its token
// snippet, and carries no header: a configured header keeps some
// clients from signing in at all.
func TestOAuthWayHasNoHeader(t *testing.T) {
	keys := map[string]string{"Cursor": "url", "VS Code": "url", "Windsurf": "serverUrl", "Gemini CLI": "httpUrl"}
	for _, s := range clientconfig.OAuthFor(endpoint) {
		if !strings.Contains(s.Text, endpoint) || strings.Contains(s.Text, "Authorization") || strings.Contains(s.Text, "headers") {
			t.Errorf("%s: %s lacks the endpoint or carries a header", s.Client, s.Text)
		}
		if s.Lang == "url" && s.Text != endpoint {
			t.Errorf("%s: the URL to paste is %q, want %s", s.Client, s.Text, endpoint)
		}
		if s.Lang != "json" {
			continue
		}
		var v map[string]map[string]map[string]any
		if err := json.Unmarshal([]byte(s.Text), &v); err != nil {
			t.Errorf("%s: not JSON: %v\n%s", s.Client, err, s.Text)
			continue
		}
		for _, servers := range v {
			if key := keys[s.Client]; servers[clientconfig.ServerName][key] != endpoint {
				t.Errorf("%s: %s = %v, want %s", s.Client, key, servers[clientconfig.ServerName][key], endpoint)
			}
		}
	}
}

// TestEveryTokenClientCanSignIn: every client with a token snippet but
// taskwire-bridge (tokens only) has a way to sign in too, so the Connect
// page offers both ways for each; and VS Code's is its token file
// without the header.
func TestEveryTokenClientCanSignIn(t *testing.T) {
	oauth := map[string]clientconfig.Snippet{}
	for _, s := range clientconfig.OAuthFor(endpoint) {
		oauth[s.Client] = s
	}
	for _, s := range clientconfig.For(endpoint, token) {
		if _, ok := oauth[s.Client]; !ok && !strings.HasPrefix(s.Client, "taskwire-bridge") {
			t.Errorf("%s has a token snippet and no way to sign in", s.Client)
		}
	}
	want := "{\n  \"servers\": {\n    \"taskwire\": {\n      \"type\": \"http\",\n      \"url\": \"" + endpoint + "\"\n    }\n  }\n}"
	if got := oauth["VS Code"].Text; got != want {
		t.Errorf("VS Code's way to sign in =\n%s\nwant\n%s", got, want)
	}
	for _, c := range []string{"Claude.ai and Claude Desktop", "ChatGPT (developer mode)", "MCP Inspector"} {
		if oauth[c].Then == "" {
			t.Errorf("%s: no word on what to do once the URL is pasted", c)
		}
	}
}

// TestOAuthShellLine: Claude Code's line to sign in, run through a real
// shell, passes the endpoint as one argument and no header.
func TestOAuthShellLine(t *testing.T) {
	odd := "http://127.0.0.1:8080/api/mcp?x=$HOME&y='1'"
	var line string
	for _, s := range clientconfig.OAuthFor(odd) {
		if s.Client == "Claude Code" {
			line = s.Text
		}
	}
	out, err := exec.Command("sh", "-c", `claude() { for a in "$@"; do printf '%s\n' "$a"; done; }; `+line).Output()
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	wantArgs := []string{"mcp", "add", "--transport", "http", "taskwire", odd}
	if strings.Join(args, "|") != strings.Join(wantArgs, "|") {
		t.Errorf("the shell saw %q, want %q", args, wantArgs)
	}
}
