package tests

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// More of the victim's identifiers, each with an absent twin, for the
// tools of the full catalogue.

func (g *isoGenCtx) absentRef() string { return fmt.Sprintf("T-%d", 5000+g.rng.IntN(4000)) }

// ownRef is a ref of the attacker's own, live: a probe naming it gets
// past the lookup of the task to what it names of the victim's.
func (g *isoGenCtx) ownRef() string { return pick(g.rng, g.attacker.ids.refs) }

func (g *isoGenCtx) label() string   { return g.use(pick(g.rng, g.victim.ids.labels), g.name()) }
func (g *isoGenCtx) project() string { return g.use(pick(g.rng, g.victim.ids.projects), g.name()) }

// word is a word that occurs only in the text of the victim's tasks.
func (g *isoGenCtx) word() string { return g.use(pick(g.rng, g.victim.ids.words), g.name()) }

// commentID is the id of one of the victim's comments, a JSON number.
func (g *isoGenCtx) commentID() string {
	id := pick(g.rng, g.victim.ids.commentIDs)
	s := g.use(id, strconv.Itoa(900000+g.rng.IntN(99999)))
	g.p.numbers = append(g.p.numbers, len(g.p.foreign)-1)
	return s
}

// idemKey is key, an idempotency key the victim used. Its twin is
// derived from it, always the same: keys are remembered per member, so a
// caller who sends the victim's key a second time meets its own first use
// of it, and the twin must meet its own first use alike.
func (g *isoGenCtx) idemKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	b := []byte{'n'}
	for _, c := range sum[:max(len(key)-1, 1)] {
		b = append(b, 'a'+c%26)
	}
	return g.use(key, string(b))
}

// maybeKey adds, one time in three, one of the victim's idempotency keys
// to the arguments of a write.
func (g *isoGenCtx) maybeKey(args map[string]any) {
	if g.rng.IntN(3) == 0 {
		args["idempotency_key"] = g.idemKey(pick(g.rng, g.victim.ids.keyed).key)
	}
}

// cursor sets args' cursor to a next_cursor of the victim's list tool,
// half the time with the filters it came with (those args does not set).
func (g *isoGenCtx) cursor(tool string, args map[string]any) {
	c := pick(g.rng, g.victim.ids.cursors[tool])
	if g.rng.IntN(2) == 0 {
		for k, v := range c.args {
			if _, set := args[k]; !set {
				args[k] = v
			}
		}
	}
	args["cursor"] = g.use(c.cursor, g.mutate(c.cursor))
}

// lease sets args' ref and lease_token: a lease token of the victim's,
// live or ended, for its own task, for another task of the victim's, or
// for a task the attacker holds under a live lease of its own.
func (g *isoGenCtx) lease(args map[string]any) {
	l := pick(g.rng, g.victim.ids.leases)
	switch g.rng.IntN(3) {
	case 0:
		args["ref"] = g.use(l.ref, g.absentRef())
	case 1:
		args["ref"] = g.ref()
	default:
		args["ref"] = pick(g.rng, g.attacker.ids.held)
		g.p.what += " (for a task of the caller's own tenant)"
	}
	args["lease_token"] = g.use(l.token, g.absentLease(l.token))
}

// absentLease is a lease token of the shape of tok for a work item that
// exists nowhere, with a secret nobody was given.
func (g *isoGenCtx) absentLease(tok string) string {
	parts := strings.Split(tok, ".")
	if len(parts) != 4 {
		return g.mutate(tok)
	}
	secret := make([]byte, base64.RawURLEncoding.DecodedLen(len(parts[3])))
	for i := range secret {
		secret[i] = byte(g.rng.IntN(256))
	}
	parts[1] = strconv.Itoa(900000 + g.rng.IntN(99999))
	parts[3] = base64.RawURLEncoding.EncodeToString(secret)
	return strings.Join(parts, ".")
}
