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
