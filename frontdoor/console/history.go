package console

import (
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/historytext"
)

// historyEntry is one line of a task's History: who, in words a person
// reads ("bot (assistant of alice, via Claude Code)"), and what they did,
// as a sentence ("moved T-3 from next to doing"). Both are text, escaped
// by the template: assistants write titles, reasons and labels, and
// clients name themselves.
type historyEntry struct {
	Who, Kind, Did string
	At             *timestamppb.Timestamp
}

// historyOf turns a task's activity into sentences; members gives each
// actor's kind and sponsor.
func historyOf(ref string, entries []*taskwirev1.HistoryEntry, members map[string]*taskwirev1.Member) []historyEntry {
	out := make([]historyEntry, 0, len(entries))
	for _, e := range entries {
		h := historyEntry{Who: e.GetActor(), Kind: "person", Did: historytext.Sentence(ref, e), At: e.GetAt()}
		var about []string
		if m := members[e.GetActor()]; m != nil {
			h.Kind = memberKind(m.GetKind())
			if s := m.GetSponsor(); s != "" {
				about = append(about, "assistant of "+s)
			}
		}
		if c := e.GetClient(); c != "" {
			about = append(about, "via "+c)
		}
		if len(about) > 0 {
			h.Who += " (" + strings.Join(about, ", ") + ")"
		}
		out = append(out, h)
	}
	return out
}

// members are the tenant's members by handle, read page by page.
func (c *Console) members(ctx context.Context) (map[string]*taskwirev1.Member, error) {
	out := map[string]*taskwirev1.Member{}
	req := &taskwirev1.ListMembersRequest{Limit: 100}
	for range 20 {
		resp, err := c.board.ListMembers(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, m := range resp.GetItems() {
			out[m.GetHandle()] = m
		}
		if req.Cursor = resp.GetNextCursor(); req.Cursor == "" {
			break
		}
	}
	return out, nil
}

// kindsOf is each member's kind ("person", "assistant") by handle.
func kindsOf(members map[string]*taskwirev1.Member) map[string]string {
	kinds := make(map[string]string, len(members))
	for h, m := range members {
		kinds[h] = memberKind(m.GetKind())
	}
	return kinds
}
