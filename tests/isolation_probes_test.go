package tests

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// isoProbe is one request a caller of one tenant makes with another
// tenant's identifiers. Each placeholder in it stands for one of them:
// the probe is sent with foreign, and its twin with absent, identifiers
// of the same shape that exist in no tenant. Both must get the same
// answer, but for the identifiers themselves.
type isoProbe struct {
	covers  string // the tool, content method or admin RPC
	what    string // what is tried, for messages
	admin   string // an admin RPC; else an MCP request
	grpc    bool   // the admin RPC over gRPC rather than JSON
	call    isoCall
	body    string // the admin request
	confirm bool   // answer a confirmation form with yes
	ownOnly bool   // legacy: in the caller's own session
	refused bool   // only operators may: it must fail
	exact   bool   // a success too must be word for word the twin's: it reads only what the caller has
	foreign []string
	absent  []string
	numbers []int // placeholders that stand for JSON numbers
}

// isoGen makes probes of one tool, method or RPC against victim.
type isoGen struct {
	covers string // the tool, content method or admin RPC
	make   func(g *isoGenCtx) *isoProbe
}

// isoGenCtx is what a generator draws from.
type isoGenCtx struct {
	rng              *rand.Rand
	attacker, victim *isoWorld
	p                *isoProbe
}

// use returns the placeholder of a foreign identifier and its absent twin.
func (g *isoGenCtx) use(foreign, absent string) string {
	if strings.ContainsAny(foreign+absent, `"\`) {
		panic("identifier not safe in JSON: " + foreign)
	}
	g.p.foreign = append(g.p.foreign, foreign)
	g.p.absent = append(g.p.absent, absent)
	return fmt.Sprintf("@@%d@@", len(g.p.foreign)-1)
}

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// The victim's identifiers, each with an absent twin.

func (g *isoGenCtx) ref() string {
	ids := g.victim.ids
	var ref string
	if g.rng.IntN(4) == 0 {
		ref = pick(g.rng, ids.deletedRefs)
	} else {
		ref = pick(g.rng, ids.refs)
	}
	absent := fmt.Sprintf("T-%d", 5000+g.rng.IntN(4000))
	if g.rng.IntN(5) == 0 { // refs are taken in lower case too
		ref, absent = strings.ToLower(ref), strings.ToLower(absent)
	}
	return g.use(ref, absent)
}

func (g *isoGenCtx) name() string { return "nw" + g.letters(8) }

func (g *isoGenCtx) letters(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[g.rng.IntN(len(letters))]
	}
	return string(b)
}

func (g *isoGenCtx) board() string  { return g.use(pick(g.rng, g.victim.ids.boards), g.name()) }
func (g *isoGenCtx) handle() string { return g.use(pick(g.rng, g.victim.ids.handles), g.name()) }

// member is a handle, or a member id where a handle is expected.
func (g *isoGenCtx) member() string {
	if g.rng.IntN(3) == 0 {
		return g.use(pick(g.rng, g.victim.ids.memberIDs), strconv.Itoa(900000+g.rng.IntN(99999)))
	}
	return g.handle()
}

// tenant is the victim's slug, or its id.
func (g *isoGenCtx) tenant() string {
	if g.rng.IntN(4) == 0 {
		return g.use(strconv.Itoa(g.victim.id), strconv.Itoa(900000+g.rng.IntN(99999)))
	}
	return g.use(g.victim.slug, g.name())
}

func (g *isoGenCtx) tokenID() string {
	id := pick(g.rng, g.victim.ids.tokenIDs)
	return g.use(id, g.mutate(id))
}

func (g *isoGenCtx) taskCursor() string {
	after := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "after:%d", 7000+g.rng.IntN(1000)))
	return g.use(pick(g.rng, g.victim.ids.taskCursors), after)
}

func (g *isoGenCtx) auditCursor() string {
	c := pick(g.rng, g.victim.ids.auditCursors)
	return g.use(c, g.mutate(c))
}

// memberPage is a page token of ListMembers: an id, encoded.
func (g *isoGenCtx) memberPage() string {
	absent := base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(900000 + g.rng.IntN(99999))))
	return g.use(pick(g.rng, g.victim.ids.memberPages), absent)
}

// tokenPage is a page token of ListTokens: a token id, encoded.
func (g *isoGenCtx) tokenPage() string {
	p := pick(g.rng, g.victim.ids.tokenPages)
	id, _ := base64.RawURLEncoding.DecodeString(p)
	return g.use(p, base64.RawURLEncoding.EncodeToString([]byte(g.mutate(string(id)))))
}

// mutate returns s with some letters and digits replaced by others of
// their kind: the same shape, but nobody's. It takes one number from the
// probes' generator whatever s holds (s may come from the server, which
// is not seeded), so that a seed replays the same probes.
func (g *isoGenCtx) mutate(s string) string {
	r := rand.New(rand.NewPCG(g.rng.Uint64(), 0))
	b := []byte(s)
	for changed := 0; changed < 4; {
		i := r.IntN(len(b))
		var set string
		switch c := b[i]; {
		case c >= 'a' && c <= 'z':
			set = "abcdefghijklmnopqrstuvwxyz"
		case c >= 'A' && c <= 'Z':
			set = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		case c >= '0' && c <= '9':
			set = "0123456789"
		default:
			continue
		}
		if n := set[r.IntN(len(set))]; n != b[i] {
			b[i] = n
			changed++
		}
	}
	return string(b)
}

func (g *isoGenCtx) lane() string { return pick(g.rng, []string{"backlog", "next", "doing", "done"}) }

// tool makes the probe a tools/call of name with args.
func (g *isoGenCtx) tool(name string, args map[string]any) *isoProbe {
	params := toolParams(name, args)
	for _, i := range g.p.numbers {
		params = strings.ReplaceAll(params, fmt.Sprintf(`"@@%d@@"`, i), fmt.Sprintf("@@%d@@", i))
	}
	g.p.what = "tools/call " + name + g.p.what // after what the generator noted
	g.p.call = isoCall{method: "tools/call", name: name, params: params}
	return g.p
}

// content makes the probe an MCP request of method with params.
func (g *isoGenCtx) content(method, name string, params any) *isoProbe {
	b, _ := json.Marshal(params)
	g.p.what = method
	g.p.call = isoCall{method: method, name: name, params: string(b)}
	return g.p
}

// rpc makes the probe a call of the admin RPC method with req.
func (g *isoGenCtx) rpc(method string, req map[string]any) *isoProbe {
	b, _ := json.Marshal(req)
	g.p.admin, g.p.body, g.p.grpc = method, string(b), g.rng.IntN(2) == 0
	g.p.what = "admin " + method
	if g.p.grpc {
		g.p.what += " (gRPC)"
	} else {
		g.p.what += " (JSON)"
	}
	return g.p
}

// someOf keeps at least one of fields, each with even odds, and calls
// those kept.
func (g *isoGenCtx) someOf(fields ...func()) {
	keep := 1 + g.rng.IntN(1<<len(fields)-1)
	for i, f := range fields {
		if keep&(1<<i) != 0 {
			f()
		}
	}
}

// maybeTenant names the victim's tenant in an admin request, or leaves
// the tenant out (the caller's own) with even odds.
func (g *isoGenCtx) maybeTenant(req map[string]any) map[string]any {
	if g.rng.IntN(2) == 0 {
		req["tenant"] = g.tenant()
	}
	return req
}
