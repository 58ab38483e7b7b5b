package console

import (
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/services/board"
)

// TestHistoryWho: the history names who acted, an assistant with its
// sponsor, and the client they acted through when the board recorded
// one.
func TestHistoryWho(t *testing.T) {
	members := map[string]*taskwirev1.Member{
		"ada":    {Handle: "ada", Kind: taskwirev1.MemberKind_MEMBER_KIND_HUMAN},
		"claude": {Handle: "claude", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "ada"},
		"loner":  {Handle: "loner", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT},
	}
	for _, c := range []struct {
		actor, client, want, kind string
	}{
		{"claude", "Claude Code", "claude (assistant of ada, via Claude Code)", "assistant"},
		{"claude", "", "claude (assistant of ada)", "assistant"},
		{"loner", "cli", "loner (via cli)", "assistant"},
		{"ada", "laptop", "ada (via laptop)", "person"},
		{"ada", "", "ada", "person"},
		{"gone", "Hostile <b>Client</b>", "gone (via Hostile <b>Client</b>)", "person"},
	} {
		e := &taskwirev1.HistoryEntry{Action: board.ActionTaskMoved, Actor: c.actor, Client: c.client,
			Detail: []*taskwirev1.Detail{{Name: "from", Value: "next"}, {Name: "to", Value: "doing"}}}
		got := historyOf("T-3", []*taskwirev1.HistoryEntry{e}, members)
		if len(got) != 1 || got[0].Who != c.want || got[0].Kind != c.kind || got[0].Did != "moved T-3 from next to doing" {
			t.Errorf("historyOf(%s via %q) = %+v, want %q (%s) moved T-3 from next to doing", c.actor, c.client, got, c.want, c.kind)
		}
	}
}
