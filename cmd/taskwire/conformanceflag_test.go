package main

import (
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/caller/authn"
)

func TestConformanceNeedsLoopback(t *testing.T) {
	cfg := config{Conformance: true, PublicURL: "https://board.example.com", MaxTokenTTL: authn.DefaultMaxTTL}
	if err := cfg.resolve("0.0.0.0:8080"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("--conformance with a public URL: err = %v, want a refusal naming loopback", err)
	}
	cfg = config{Conformance: true, MaxTokenTTL: authn.DefaultMaxTTL}
	if err := cfg.resolve("[::1]:8080"); err != nil {
		t.Errorf("--conformance on [::1]: %v", err)
	}
}
