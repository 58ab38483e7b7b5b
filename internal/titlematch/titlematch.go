// Package titlematch finds titles that may be near-duplicates of another
// without comparing it with every title: every title is indexed by each of
// its words, and a title is looked up by a few of its words only (its
// probe), chosen so that every title similar enough has one of them.
//
// Two titles are similar when the Jaccard index of their sets of words is
// at least Threshold (see Words for what a word is). If B reaches
// Threshold with A, then |A∩B| ≥ t·|A∪B| ≥ ⌈t·|A|⌉: B holds all but at
// most |A| − ⌈t·|A|⌉ words of A, so B holds one of any |A| − ⌈t·|A|⌉ + 1
// words of A (pigeonhole). Any such words will do, so a look-up takes the
// rarest on the board (Probe): on a board whose titles all hold a
// project's name, the name is never looked up while the title has rarer
// words. The sizes must be close too: t·|A| ≤ |B| ≤ |A|/t (Sizes).
//
// The words are stored with tasks: Words must never change without a
// schema version whose migration indexes every title again. Order only
// breaks ties between words equally frequent, at look-up, and may change.
package titlematch

import (
	"cmp"
	"hash/fnv"
	"slices"
	"strings"
	"unicode"
)

// Threshold is the least Jaccard index at which two titles count as likely
// duplicates: thresholdNum / thresholdDen, kept as a fraction so that the
// probe and size bounds are exact integer arithmetic.
const Threshold = float64(thresholdNum) / thresholdDen

const (
	thresholdNum = 4
	thresholdDen = 5
)

// Empty is the token of a title without words: such titles repeat one
// another (two empty word lists are equal), so they share a token. No
// word is empty, so it meets no other.
const Empty = ""

// Words returns title's words, lowercase, in order: every rune that is
// not a letter or a digit separates words, so case, punctuation and
// spacing make no difference ("Fix: login  BUG!" is "fix login bug").
func Words(title string) []string {
	return strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Set returns the distinct words of words, in Order.
func Set(words []string) []string {
	set := slices.Clone(words)
	slices.SortFunc(set, Order)
	return slices.Compact(set)
}

// Order is the order of a title's words (Set) in which Probe prefers
// words equally frequent on a board, as words past its count's cap are:
// the common words of task titles last (common, the most common at the
// very end), every other word by a 64-bit FNV-1a hash, ties by the word,
// so that the choice does not lean on the alphabet. FNV-1a is in the
// standard library and never changes.
func Order(a, b string) int {
	if c := cmp.Compare(commonRank[a], commonRank[b]); c != 0 {
		return c
	}
	if c := cmp.Compare(hash(a), hash(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// common are words found in many task titles, the most common first:
// English function words and the verbs and nouns titles start with.
var common = []string{
	"the", "to", "a", "in", "for", "and", "of", "on", "fix", "add", "with", "is", "from", "update",
	"an", "by", "at", "not", "when", "be", "use", "remove", "bug", "new", "as", "or", "it", "make",
	"this", "that", "all", "into", "no", "page", "error", "test", "tests", "support", "change",
	"improve", "create", "delete", "set", "get", "show", "check", "allow", "handle", "move",
	"list", "after", "before", "should", "can", "does", "do", "if", "up", "out", "user", "users",
	"data", "issue", "api", "docs", "1", "2", "3",
}

// commonRank orders the common words after every other (rank 0), the
// most common last.
var commonRank = func() map[string]int {
	rank := make(map[string]int, len(common))
	for i, w := range common {
		rank[w] = len(common) - i
	}
	return rank
}()

func hash(w string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(w))
	return h.Sum64()
}

// Tokens returns what a title with the distinct words set (as Set returns
// them) is indexed by: each of its words, or Empty for a title without
// words.
func Tokens(set []string) []string {
	if len(set) == 0 {
		return []string{Empty}
	}
	return set
}

// ProbeSize returns how many words of a title of n distinct words a
// look-up needs, n − ⌈t·n⌉ + 1, so that every similar title holds one of
// them: 1 up to 4 words, 2 from 5 to 9, 3 from 10 to 14 …
func ProbeSize(n int) int {
	atLeast := (thresholdNum*n + thresholdDen - 1) / thresholdDen // ⌈t·n⌉
	return n - atLeast + 1
}

// Probe returns the tokens a title with the distinct words set (in Order,
// as Set returns them) is looked up by: the ProbeSize(len(set)) words that
// fewest titles of the board hold, as count says (it may stop counting at
// a cap: words past it are all common), ties in Order; or Empty for a
// title without words. Every title similar to it holds one of them. It
// counts the words in Order and stops once enough are held by no title,
// since none can be rarer.
func Probe(set []string, count func(word string) int) []string {
	if len(set) == 0 {
		return []string{Empty}
	}
	n := ProbeSize(len(set))
	if n == len(set) {
		return set
	}
	counts := make(map[string]int, len(set))
	var unheld []string
	for _, w := range set {
		counts[w] = count(w)
		if counts[w] == 0 {
			if unheld = append(unheld, w); len(unheld) == n {
				return unheld
			}
		}
	}
	byCount := slices.Clone(set)
	slices.SortStableFunc(byCount, func(a, b string) int { return cmp.Compare(counts[a], counts[b]) })
	return byCount[:n]
}

// Sizes returns the least and the most distinct words a title may have to
// be similar to one with n: ⌈t·n⌉ and ⌊n/t⌋.
func Sizes(n int) (least, most int) {
	return (thresholdNum*n + thresholdDen - 1) / thresholdDen, thresholdDen * n / thresholdNum
}
