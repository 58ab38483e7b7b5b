// Package titlematch finds titles that may be near-duplicates of another
// without comparing it with every title: each title is known by a few of
// its words (its prefix), and two titles similar enough always share one.
//
// Two titles are similar when the Jaccard index of their sets of words is
// at least Threshold (see Words for what a word is). Order the distinct
// words of every title the same way (Order); then a set B can reach
// Threshold with a set A only if the first Prefix words of each share a
// word. Proof: take the first word, in that order, that A and B share;
// every word of A before it is not in B, so it stands at most
// |A| − |A∩B| + 1 into A, and |A∩B| ≥ t·|A∪B| ≥ ⌈t·|A|⌉; the same holds
// for B. The sizes must be close too: t·|A| ≤ |B| ≤ |A|/t (Sizes).
//
// The order must never change: the prefixes stored with tasks were taken
// in it. A new order needs every stored prefix computed again.
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
// prefix and size bounds are exact integer arithmetic.
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

// Order is the fixed global order of words in which prefixes are taken:
// the common words of task titles last (common, the most common at the
// very end), every other word by a 64-bit FNV-1a hash, ties by the word.
// A prefix is where a title is looked up, so it should hold rare words:
// a word that is in the prefix of most titles would make every look-up
// read most of the board. The hash spreads the other words across
// positions without statistics that change as boards grow; FNV-1a is in
// the standard library and never changes. Neither may the list: the
// stored prefixes were taken in this order.
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

// Prefix returns the tokens a title with the distinct words set (in Order,
// as Set returns them) is indexed and looked up by: its first
// n − ⌈t·n⌉ + 1 words, or Empty for a title without words.
func Prefix(set []string) []string {
	if len(set) == 0 {
		return []string{Empty}
	}
	n := len(set)
	atLeast := (thresholdNum*n + thresholdDen - 1) / thresholdDen // ⌈t·n⌉
	return set[:n-atLeast+1]
}

// Sizes returns the least and the most distinct words a title may have to
// be similar to one with n: ⌈t·n⌉ and ⌊n/t⌋.
func Sizes(n int) (least, most int) {
	return (thresholdNum*n + thresholdDen - 1) / thresholdDen, thresholdDen * n / thresholdNum
}
