package historytext_test

import (
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/historytext"
	"github.com/taskwire/taskwire/services/board"
)

// TestHistorySentences: every action the board records on a task reads
// as a sentence, from the details as the board writes them.
func TestHistorySentences(t *testing.T) {
	for _, c := range []struct {
		action string
		detail map[string]string
		want   string
	}{
		{board.ActionTaskCreated, map[string]string{"lane": "next", "board": "main", "title": "x"}, "created T-3 in next"},
		{board.ActionTaskCreated, map[string]string{"lane": "backlog", "import": "true"}, "imported T-3 into backlog"},
		{board.ActionTaskMoved, map[string]string{"from": "next", "to": "doing", "position": "0"}, "moved T-3 from next to doing"},
		{board.ActionTaskMoved, map[string]string{"from": "doing", "to": "doing"}, "reordered T-3 within doing"},
		{board.ActionTaskUpdated, map[string]string{"changed": `["title"]`, "title": "Ship <it>"}, "renamed T-3 to “Ship <it>”"},
		{board.ActionTaskUpdated, map[string]string{"changed": `["note"]`}, "edited the note of T-3"},
		{board.ActionTaskUpdated, map[string]string{"changed": `["title","note","size","labels"]`, "title": "New", "size": "m",
			"labels_added": `["ui","web"]`, "labels_removed": `["old"]`}, "changed the title to “New”, note, size to m and labels (added ui, web; removed old) of T-3"},
		{board.ActionTaskUpdated, map[string]string{"changed": `["links"]`, "links_added": `["blocks T-5"]`}, "changed the links (added blocks T-5) of T-3"},
		{board.ActionTaskAssigned, map[string]string{"added": `["bob"]`}, "assigned bob to T-3"},
		{board.ActionTaskAssigned, map[string]string{"removed": `["carol"]`}, "unassigned carol from T-3"},
		{board.ActionTaskAssigned, map[string]string{"added": `["bob"]`, "removed": `["carol"]`}, "assigned bob to T-3 and unassigned carol"},
		{board.ActionTaskFlagged, map[string]string{"reason": "blocked on review"}, "flagged T-3: blocked on review"},
		{board.ActionTaskUnflagged, map[string]string{"reason_was": "x"}, "cleared the flag on T-3"},
		{board.ActionCommentAdded, map[string]string{"comment": "2"}, "commented on T-3"},
		{board.ActionCommentEdited, map[string]string{"comment": "2"}, "edited a comment on T-3"},
		{board.ActionTaskDeleted, map[string]string{"lane": "next"}, "deleted T-3"},
		{board.ActionTaskRestored, map[string]string{"lane": "next"}, "restored T-3"},
		{board.ActionWorkApproved, map[string]string{"lease_minutes": "30", "max_claims": "3"}, "approved T-3 for assistants (a 30-minute lease, at most 3 claims)"},
		{board.ActionWorkClaimed, map[string]string{"claims": "1"}, "claimed T-3 to work on it"},
		{board.ActionWorkReleased, map[string]string{"state": "approved", "reason": "tests need a database"}, "gave T-3 back: tests need a database"},
		{board.ActionWorkCompleted, map[string]string{"from": "doing", "test_status": "not_run"}, "finished work on T-3 (tests not run)"},
		{"task.frobbed", map[string]string{"b": "2", "a": "1"}, "task.frobbed T-3; a: 1; b: 2"},
	} {
		e := &taskwirev1.HistoryEntry{Action: c.action, Actor: "alice"}
		for k, v := range c.detail {
			e.Detail = append(e.Detail, &taskwirev1.Detail{Name: k, Value: v})
		}
		if got := historytext.Sentence("T-3", e); got != c.want {
			t.Errorf("Sentence(%s %v) = %q, want %q", c.action, c.detail, got, c.want)
		}
	}
}
