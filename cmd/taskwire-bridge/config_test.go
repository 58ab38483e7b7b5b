package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// The token in the environment is a secret: help must not print it as the
// flag's default, yet it is still the token the bridge uses.
func TestHelpKeepsTheTokenSecret(t *testing.T) {
	const secret = "eyJsecret.token.value"
	t.Setenv("TASKWIRE_TOKEN", secret)
	t.Setenv("TASKWIRE_URL", "http://127.0.0.1:8080/api/mcp")
	var stdout, stderr bytes.Buffer
	if _, _, err := parseFlags([]string{"--help"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parseFlags(--help) = %v, want flag.ErrHelp", err)
	}
	if out := stdout.String() + stderr.String(); strings.Contains(out, secret) {
		t.Errorf("--help printed the token from TASKWIRE_TOKEN:\n%s", out)
	}
	c, _, err := parseFlags(nil, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != secret {
		t.Errorf("token = %q, want the one from TASKWIRE_TOKEN", c.Token)
	}
	c, _, err = parseFlags([]string{"--token", "flagtoken"}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "flagtoken" {
		t.Errorf("token = %q, want --token's, which wins over the environment", c.Token)
	}
}
