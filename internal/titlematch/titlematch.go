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
// by a 64-bit FNV-1a hash of the word, ties by the word. A hash spreads
// frequent words ("fix", "the") across positions, so no one word stands
// first in most titles; FNV-1a is in the standard library and never
// changes, which the stored prefixes need.
func Order(a, b string) int {
	if c := cmp.Compare(hash(a), hash(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

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
