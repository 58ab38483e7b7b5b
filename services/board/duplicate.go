package board

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/titlematch"
)

// Duplicate detection on tasks_create.
const (
	// duplicateThreshold is the least similarity (see titleSimilarity) at
	// which a title counts as a likely duplicate. At 0.8 one word added to
	// a title of four or more ("Fix login page bug" and "Fix the login
	// page bug") still matches, while titles that differ in a word that
	// matters ("Fix login bug" and "Fix signup bug", 0.5) stay apart:
	// refusing a create wrongly costs a second call, missing a duplicate
	// costs a second task someone must notice.
	duplicateThreshold = titlematch.Threshold
	// maxDuplicates is how many likely duplicates a refusal lists.
	maxDuplicates = 5
)

// normalizeTitle returns title's words, lowercase, in order (see
// titlematch.Words): case, punctuation and spacing make no difference.
func normalizeTitle(title string) []string { return titlematch.Words(title) }

// titleSimilarity returns how alike two titles are, from 0 to 1: 1 when
// their normalized forms (normalizeTitle) are equal, otherwise the Jaccard
// index of their sets of words (words in both over words in either). Word
// order and repeats are ignored, so "Upgrade Go to 1.25" and "Go 1.25:
// upgrade" score 0.8 (only "to" differs), while one word changed in a
// short title counts for much. It is symmetric and cheap; the tasks it
// compares a title with are only those the title index finds
// (candidateTitles), so a create costs the same on any board.
func titleSimilarity(a, b []string) float64 {
	if slices.Equal(a, b) {
		return 1
	}
	set := map[string]uint8{}
	for _, w := range a {
		set[w] |= 1
	}
	for _, w := range b {
		set[w] |= 2
	}
	both := 0
	for _, in := range set {
		if in == 3 {
			both++
		}
	}
	if len(set) == 0 {
		return 0
	}
	return float64(both) / float64(len(set))
}

// likelyDuplicate is an open task whose title is close to a new one.
type likelyDuplicate struct {
	task  *ent.Task
	score float64
}

// findDuplicates returns the open tasks (not deleted, not done) on board
// boardID whose title is a likely duplicate of title, most similar first,
// at most maxDuplicates. It must run inside the creating transaction, once
// the tenant's row is locked (allocate or quota.Lock), so that two
// concurrent creates of the same task cannot both pass it.
func findDuplicates(ctx context.Context, c *ent.Client, a actor, boardID int, title string) ([]likelyDuplicate, error) {
	words := normalizeTitle(title)
	open, err := candidateTitles(ctx, c, a, boardID, [][]string{words})
	if err != nil {
		return nil, err
	}
	var out []likelyDuplicate
	for _, t := range open {
		if score := titleSimilarity(words, normalizeTitle(t.Title)); score >= duplicateThreshold {
			out = append(out, likelyDuplicate{task: t, score: score})
		}
	}
	slices.SortFunc(out, func(x, y likelyDuplicate) int {
		if x.score != y.score {
			if x.score > y.score {
				return -1
			}
			return 1
		}
		return x.task.Number - y.task.Number
	})
	if len(out) > maxDuplicates {
		out = out[:maxDuplicates]
	}
	return out, nil
}

// duplicateError refuses to create a task that likely repeats dups.
func duplicateError(boardSlug string, dups []likelyDuplicate) error {
	list := make([]string, len(dups))
	for i, d := range dups {
		list[i] = fmt.Sprintf("%s %q", Ref(d.task.Number), d.task.Title)
	}
	what := "an open task"
	if len(dups) > 1 {
		what = "open tasks"
	}
	return domainerr.New(domainerr.Conflict,
		"nothing was created: board %s already has %s with a very similar title (%s); update one of them with tasks_update instead, or call tasks_create again with allow_duplicate: true if the new task really is different",
		boardSlug, what, strings.Join(list, ", "))
}
