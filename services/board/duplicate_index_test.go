package board

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/internal/titlematch"
)

// vocabulary is small, so that random titles often share most words and
// near-duplicates are common; "" and "!!" make titles without words.
var vocabulary = []string{"fix", "login", "page", "bug", "the", "add", "search", "api", "timeout", "go", "1.25", "修复", "Login", "!!", ""}

// randomTitle joins up to seven random words with random separators.
func randomTitle(r *rand.Rand) string {
	n := r.IntN(8)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString([]string{" ", ": ", "  ", "-"}[r.IntN(4)])
		}
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
	}
	if strings.TrimSpace(b.String()) == "" {
		return "??"
	}
	return b.String()
}

// TestIndexedDuplicatesMatchFullScan checks the title index against the
// check it replaced, which compared a title with every open task of the
// board: on random boards (done, deleted and renamed tasks among them),
// findDuplicates and splitDuplicates must return exactly what the full
// scan returns, the same tasks in the same order with the same scores.
func TestIndexedDuplicatesMatchFullScan(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		ctx, boot, a := acmeOwner(t, c)
		boards := []int{boot.Board.ID}
		for _, slug := range []string{"ops", "web"} {
			boards = append(boards, c.Board.Create().SetTenantID(boot.Tenant.ID).SetSlug(slug).SetName(slug).SaveX(ctx).ID)
		}
		r := rand.New(rand.NewPCG(19, 2026))
		var ids []int
		for n := 1; n <= 300; n++ {
			cr := c.Task.Create().SetTenantID(boot.Tenant.ID).SetBoardID(boards[r.IntN(len(boards))]).SetNumber(n).
				SetTitle(randomTitle(r)).SetCreatedByID(boot.Owner.ID)
			switch r.IntN(6) {
			case 0:
				cr.SetLane(task.LaneDone)
			case 1:
				cr.SetDeletedAt(time.Now())
			}
			ids = append(ids, cr.SaveX(ctx).ID)
		}
		// Renamed tasks must be found by their new titles only.
		for range 60 {
			c.Task.UpdateOneID(ids[r.IntN(len(ids))]).SetTitle(randomTitle(r)).ExecX(ctx)
		}

		for i := range 300 {
			boardID, title := boards[r.IntN(len(boards))], randomTitle(r)
			got, err := findDuplicates(ctx, c, a, boardID, title)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(scanDuplicates(t, ctx, c, a, boardID, title), summary(got)); diff != "" {
				t.Fatalf("findDuplicates(board %d, %q) #%d (-full scan +indexed):\n%s", boardID, title, i, diff)
			}
		}
		for i := range 30 {
			boardID := boards[r.IntN(len(boards))]
			drafts := make([]draft, 1+r.IntN(20))
			for j := range drafts {
				drafts[j].title = randomTitle(r)
			}
			keep, skipped, err := splitDuplicates(ctx, c, a, boardID, drafts)
			if err != nil {
				t.Fatal(err)
			}
			wantKeep, wantSkipped := scanSplit(t, ctx, c, a, boardID, drafts)
			if diff := cmp.Diff(wantKeep, len(keep)); diff != "" {
				t.Fatalf("splitDuplicates #%d kept (-full scan +indexed):\n%s", i, diff)
			}
			if diff := cmp.Diff(wantSkipped, skippedSummary(skipped)); diff != "" {
				t.Fatalf("splitDuplicates #%d skipped (-full scan +indexed):\n%s", i, diff)
			}
		}
	})
}

// scanDuplicates is findDuplicates as it was before the index: every open
// task of the board compared with title.
func scanDuplicates(t *testing.T, ctx context.Context, c *ent.Client, a actor, boardID int, title string) []string {
	t.Helper()
	words := normalizeTitle(title)
	var out []likelyDuplicate
	for _, o := range allOpen(t, ctx, c, a, boardID) {
		if score := titleSimilarity(words, normalizeTitle(o.Title)); score >= duplicateThreshold {
			out = append(out, likelyDuplicate{task: o, score: score})
		}
	}
	slices.SortStableFunc(out, func(x, y likelyDuplicate) int {
		if x.score > y.score {
			return -1
		}
		if x.score < y.score {
			return 1
		}
		return 0
	})
	return summary(out[:min(len(out), maxDuplicates)])
}

// scanSplit is splitDuplicates as it was before the index: how many
// drafts it keeps and what it says of the skipped ones.
func scanSplit(t *testing.T, ctx context.Context, c *ent.Client, a actor, boardID int, drafts []draft) (int, []string) {
	t.Helper()
	var seen []similarTitle
	for _, o := range allOpen(t, ctx, c, a, boardID) {
		seen = append(seen, similarTitle{words: normalizeTitle(o.Title), title: o.Title, number: o.Number, kept: -1})
	}
	kept := 0
	var skipped []skippedDraft
	for i, d := range drafts {
		words := normalizeTitle(d.title)
		if of, ok := mostSimilar(words, seen); ok {
			skipped = append(skipped, skippedDraft{index: i, title: d.title, of: of})
			continue
		}
		seen = append(seen, similarTitle{words: words, title: d.title, kept: kept})
		kept++
	}
	return kept, skippedSummary(skipped)
}

// allOpen reads every open task of the board, oldest first.
func allOpen(t *testing.T, ctx context.Context, c *ent.Client, a actor, boardID int) []*ent.Task {
	t.Helper()
	open, err := c.Task.Query().
		Where(task.TenantID(a.tenant.ID), task.BoardID(boardID), task.DeletedAtIsNil(), task.LaneNEQ(task.LaneDone)).
		Order(ent.Asc(task.FieldNumber)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return open
}

func summary(dups []likelyDuplicate) []string {
	var out []string
	for _, d := range dups {
		out = append(out, fmt.Sprintf("T-%d %q %v", d.task.Number, d.task.Title, d.score))
	}
	return out
}

func skippedSummary(skipped []skippedDraft) []string {
	var out []string
	for _, s := range skipped {
		out = append(out, fmt.Sprintf("#%d %q of T-%d/kept %d %q", s.index, s.title, s.of.number, s.of.kept, s.of.title))
	}
	return out
}

// acmeOwner bootstraps tenant acme and returns its context, what the
// bootstrap made and its owner as the actor.
func acmeOwner(t *testing.T, c *ent.Client) (context.Context, tenancy.Result, actor) {
	t.Helper()
	bg := context.Background()
	boot, err := tenancy.Bootstrap(bg, c, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	return tenantscope.NewContext(bg, boot.Tenant.ID), boot, actor{tenant: boot.Tenant, member: boot.Owner}
}

// TestLookUpSkipsABoardsCommonWord: on a board where every title holds
// the project's name, a new title is looked up by its rarer words, so it
// reads none of the other tasks (it read them all when the name came first
// in the fixed order of words), and still finds the one it repeats.
func TestLookUpSkipsABoardsCommonWord(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		ctx, boot, a := acmeOwner(t, c)
		// A name that comes first in the order of words of the titles
		// looked up, so that only its rarity keeps it out of the look-up.
		name := ""
		for i := 0; name == ""; i++ {
			n := fmt.Sprintf("project%d", i)
			if titlematch.Set(normalizeTitle(n + " new words here too"))[0] == n && titlematch.Set(normalizeTitle(n + " w7a w7b w7c"))[0] == n {
				name = n
			}
		}
		var tasks []*ent.TaskCreate
		for n := 1; n <= 200; n++ {
			title := fmt.Sprintf("%s: w%da w%db w%dc w%dd", name, n, n, n, n)
			tasks = append(tasks, c.Task.Create().SetTenantID(boot.Tenant.ID).SetBoardID(boot.Board.ID).SetNumber(n).
				SetTitle(title).SetCreatedByID(boot.Owner.ID))
		}
		c.Task.CreateBulk(tasks...).ExecX(ctx)

		for _, title := range []string{name + ": new words here too", name + " w7a w7b w7c"} {
			got, err := candidateTitles(ctx, c, a, boot.Board.ID, [][]string{normalizeTitle(title)})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) > 1 {
				t.Errorf("candidateTitles(%q) read %d tasks, want at most the one it may repeat", title, len(got))
			}
		}
		dups, err := findDuplicates(ctx, c, a, boot.Board.ID, name+" w7a w7b w7c w7d")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{fmt.Sprintf("T-7 %q 1", name+": w7a w7b w7c w7d")}, summary(dups)); diff != "" {
			t.Errorf("findDuplicates (-want +got):\n%s", diff)
		}
	})
}
