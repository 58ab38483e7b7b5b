package board

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
)

// An import checks each draft for likely duplicates as tasks_create does
// (titleSimilarity at least duplicateThreshold), against the open tasks of
// the board the title index finds for any of the drafts (candidateTitles)
// and the drafts before it that it keeps; the duplicates are
// skipped and reported, the rest imported. So the same list imported
// twice creates nothing the second time.

// similarTitle is a title an import's drafts are compared with: an open
// task's (number set), or a kept draft's (kept set: its index among the
// kept drafts, whose number is known once they are allocated).
type similarTitle struct {
	words  []string
	title  string
	number int
	kept   int
}

// skippedDraft is a draft left out, with the title it likely repeats.
type skippedDraft struct {
	index int
	title string
	of    similarTitle
}

// splitDuplicates returns the drafts to create, in order, and those that
// likely repeat an open task of board boardID or an earlier kept draft.
// It must run in the import's transaction once the tenant's row is locked
// (quota.Lock), as findDuplicates must.
func splitDuplicates(ctx context.Context, c *ent.Client, a actor, boardID int, drafts []draft) ([]draft, []skippedDraft, error) {
	words := make([][]string, len(drafts))
	for i, d := range drafts {
		words[i] = normalizeTitle(d.title)
	}
	open, err := candidateTitles(ctx, c, a, boardID, words)
	if err != nil {
		return nil, nil, err
	}
	seen := make([]similarTitle, 0, len(open)+len(drafts))
	for _, t := range open {
		seen = append(seen, similarTitle{words: normalizeTitle(t.Title), title: t.Title, number: t.Number, kept: -1})
	}
	var keep []draft
	var skipped []skippedDraft
	for i, d := range drafts {
		words := words[i]
		if of, ok := mostSimilar(words, seen); ok {
			skipped = append(skipped, skippedDraft{index: i, title: d.title, of: of})
			continue
		}
		seen = append(seen, similarTitle{words: words, title: d.title, kept: len(keep)})
		keep = append(keep, d)
	}
	return keep, skipped, nil
}

// mostSimilar returns the title in seen most similar to words, if it is a
// likely duplicate; ties go to the first, the oldest.
func mostSimilar(words []string, seen []similarTitle) (similarTitle, bool) {
	var best similarTitle
	score := 0.0
	for _, s := range seen {
		if x := titleSimilarity(words, s.words); x >= duplicateThreshold && x > score {
			best, score = s, x
		}
	}
	return best, score > 0
}

// skippedProtos reports skipped drafts; the kept drafts got the numbers
// from first on, in order.
func skippedProtos(skipped []skippedDraft, first int) []*taskwirev1.SkippedDraft {
	out := make([]*taskwirev1.SkippedDraft, len(skipped))
	for i, s := range skipped {
		number := s.of.number
		if s.of.kept >= 0 {
			number = first + s.of.kept
		}
		out[i] = &taskwirev1.SkippedDraft{Index: int32(s.index), Title: s.title, DuplicateOf: Ref(number), DuplicateTitle: s.of.title}
	}
	return out
}
