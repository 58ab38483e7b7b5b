package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/node/nodetest"
)

// isoProbesPerDirection is how many probes the callers of each tenant
// make against the other (at least one of every kind).
const isoProbesPerDirection = 250

// TestTenantIsolation: two tenants, each with boards (with rules and WIP
// limits), tasks (labelled, flagged, linked, commented, some deleted, one
// restored), context notes, work approved and claimed under leases,
// members of every role and kind (one removed), tokens (one revoked) and
// audit events, their data sprinkled with marker words. The callers of
// each tenant (owner, admin, member, viewer, assistants, and weaker
// tokens) then make randomized requests naming the other tenant's refs,
// boards, handles, labels, projects, words, comment, member and token ids,
// cursors, page tokens, lease tokens, idempotency keys, confirmations and
// legacy sessions, through every tool, content method and admin RPC. No
// answer may hold a marker of the other tenant that the caller did not
// send itself; every answer must equal, word for word but for the
// identifiers, the answer to the same request naming identifiers that
// exist nowhere (for failures, and for reads that name the other tenant's
// things only as filters or search words); and the other tenant's rows
// must be exactly as they were. The probes come from a seed the test
// logs: TASKWIRE_ISOLATION_SEED=<seed> replays them.
func TestTenantIsolation(t *testing.T) {
	seed := isolationSeed(t)
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			rng := rand.New(rand.NewPCG(seed, 0x7e4a47))
			a, b := isoTenants(t, h, rng)
			for _, d := range []struct{ attacker, victim *isoWorld }{{a, b}, {b, a}} {
				d.attacker.settle(t, h.Sys.DB)
				d.victim.settle(t, h.Sys.DB)
				before := isoSnapshot(t, h.Sys.DB, d.victim.id)
				x := &isoRunner{t: t, wire: a.wire, attacker: d.attacker, victim: d.victim, rng: rng, sent: map[string]bool{}}
				x.run(isoProbesPerDirection)
				d.attacker.settle(t, h.Sys.DB) // what it made the worker write is written
				if diff := cmp.Diff(before, isoSnapshot(t, h.Sys.DB, d.victim.id)); diff != "" {
					t.Errorf("the probes of tenant %s's callers changed tenant %s's rows (-before +after):\n%s", d.attacker.name, d.victim.name, diff)
				}
			}
		})
	}
}

// isolationSeed is the seed of the probes: TASKWIRE_ISOLATION_SEED, or
// the time. It is logged, and again when the test fails.
func isolationSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("TASKWIRE_ISOLATION_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("TASKWIRE_ISOLATION_SEED=%q: %v", v, err)
		}
	}
	t.Logf("seed %d (replay with TASKWIRE_ISOLATION_SEED=%d)", seed, seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("failed with seed %d: replay with TASKWIRE_ISOLATION_SEED=%d", seed, seed)
		}
	})
	return seed
}

// isoTenants plants tenant A, the first start's, and tenant B, which the
// operator creates through the admin API. B's refs start at T-101, so
// that no ref of either exists in the other.
func isoTenants(t *testing.T, h *nodetest.Harness, rng *rand.Rand) (a, b *isoWorld) {
	t.Helper()
	wire := newIsoWire(t, h)
	first := h.Sys.First()
	a = &isoWorld{name: "A", slug: first.Tenant.Slug, id: first.Tenant.ID, owner: h.Token, ownerAdmin: h.AdminToken(t, first.Owner.Handle), rng: rng, wire: wire}
	a.label = "session " + a.word("A's session label")
	b = &isoWorld{name: "B", rng: rng, wire: wire}
	b.label = "session " + b.word("B's session label")
	b.slug = b.word("B's slug")
	owner := b.word("B's owner's handle")
	created := b.admin(t, h.OperatorSecret(t), "CreateTenant", map[string]any{
		"slug": b.slug, "name": "Tenant " + b.word("B's name"), "ownerHandle": owner, "ownerName": "Name " + b.word("B's owner's display name"),
	})
	b.owner = created["ownerToken"].(string)
	b.mark(b.owner, "B owner's token")
	b.ownerAdmin = b.admin(t, h.OperatorSecret(t), "CreateToken", map[string]any{"tenant": b.slug, "member": owner, "admin": true})["token"].(string)
	id, err := h.Sys.DB.Tenant.Query().Where(tenant.Slug(b.slug)).OnlyID(privacy.DecisionContext(context.Background(), privacy.Allow))
	if err != nil {
		t.Fatal(err)
	}
	b.id = id
	a.plant(t, h, first.Owner.Handle, 0, 8)
	b.plant(t, h, owner, 100, 12)
	return a, b
}

// isoRunner makes the probes of one tenant's callers against another.
type isoRunner struct {
	t                *testing.T
	wire             *isoWire
	attacker, victim *isoWorld
	rng              *rand.Rand
	sent             map[string]bool // the victim's markers the attacker's callers named themselves
	findings         int
	outcomes         map[string]map[string]int // what each kind of probe got, for the log
}

// run makes n probes, every kind once first, then at random.
func (x *isoRunner) run(n int) {
	gens := x.gens()
	order := x.rng.Perm(len(gens))
	for i := range max(n, len(gens)) {
		gen := pick(x.rng, gens)
		if i < len(order) {
			gen = gens[order[i]]
		}
		c := x.caller()
		p := gen.make(&isoGenCtx{rng: x.rng, attacker: x.attacker, victim: x.victim, p: &isoProbe{covers: gen.covers}})
		x.probe(i, c, p)
	}
	var b strings.Builder
	for _, g := range gens {
		if o := x.outcomes[g.covers]; o != nil {
			fmt.Fprintf(&b, "\n  %s: %v", g.covers, o)
			delete(x.outcomes, g.covers)
		}
	}
	x.t.Logf("tenant %s → %s: %d probes, what they got:%s", x.attacker.name, x.victim.name, max(n, len(gens)), b.String())
}

// caller picks who makes a probe: half the time one who may write and
// manage (an owner or the admin, with every scope), whose probes get past
// the role and scope checks to the lookups; else anyone, down to the
// viewer and the assistant.
func (x *isoRunner) caller() *isoCaller {
	if x.rng.IntN(2) == 0 {
		return pick(x.rng, x.attacker.managers())
	}
	return pick(x.rng, x.attacker.callers)
}

// probe sends p as c with the victim's identifiers, then with absent
// ones, and checks both answers.
func (x *isoRunner) probe(i int, c *isoCaller, p *isoProbe) {
	x.t.Helper()
	where := fmt.Sprintf("tenant %s → %s, probe %d: %s by %s", x.attacker.name, x.victim.name, i, p.what, c.who)
	got := x.send(i, c, p, p.foreign)
	for _, a := range got {
		x.scan(where, p, p.foreign, a)
	}
	last := got[len(got)-1]
	class, failed := last.class()
	x.tally(p.covers, class)
	if p.refused && !failed {
		x.fail("%s: %s, want a refusal: only platform operators may\n  request: %s\n  answer: %s", where, class, x.request(p, p.foreign), clip(last.body))
	}
	if len(p.foreign) == 0 {
		return
	}
	twin := x.send(i, c, p, p.absent)
	for _, a := range twin {
		x.scan(where+" (naming what exists nowhere)", p, p.absent, a)
	}
	x.compare(where, p, last, twin[len(twin)-1])
}

// compare fails the test unless the answer to a probe and the answer to
// its twin are alike: of the same class, and for failures worded the
// same but for the identifiers. Successes may differ (a page token of the
// victim's is a valid page of the caller's own list, say): what they hold
// is left to the marker search; but a success of a read that names the
// victim's things only as filters or search words (p.exact) must be
// worded the same too, since the caller's own data answers both alike.
func (x *isoRunner) compare(where string, p *isoProbe, got, twin isoAnswer) {
	x.t.Helper()
	class, failed := got.class()
	tclass, _ := twin.class()
	switch {
	case class != tclass:
		x.fail("%s: naming tenant %s's %q answers %s, but naming %q, which exists nowhere, answers %s: the answer tells them apart\n  request: %s\n  answer: %s\n  answer naming nothing: %s",
			where, x.victim.name, p.foreign, class, p.absent, tclass, x.request(p, p.foreign), clip(got.body), clip(twin.body))
	case (failed || p.exact) && string(got.body) != asProbe(twin.body, p.absent, p.foreign):
		x.fail("%s: the %s for tenant %s's %q is not worded as the one for %q, which exists nowhere\n  request: %s\n  answer: %s\n  answer naming nothing: %s",
			where, class, x.victim.name, p.foreign, p.absent, x.request(p, p.foreign), clip(got.body), clip(twin.body))
	}
}

// tally counts what a kind of probe got, for the log.
func (x *isoRunner) tally(covers, class string) {
	if x.outcomes == nil {
		x.outcomes = map[string]map[string]int{}
	}
	if x.outcomes[covers] == nil {
		x.outcomes[covers] = map[string]int{}
	}
	x.outcomes[covers][class]++
}

// send makes the request of p as c with vals for its placeholders, and
// answers a confirmation form with yes when p says so.
func (x *isoRunner) send(i int, c *isoCaller, p *isoProbe, vals []string) []isoAnswer {
	x.t.Helper()
	if p.admin != "" {
		body := fill(p.body, vals)
		x.note(body)
		bearer := c.token
		if c.admin != "" {
			bearer = c.admin
		}
		if p.grpc {
			return []isoAnswer{x.wire.adminGRPC(bearer, p.admin, body)}
		}
		return []isoAnswer{x.wire.adminJSON(bearer, p.admin, body)}
	}
	call := p.call
	call.id = 1_000_000 + i // the same for a probe and its twin
	call.name, call.params, call.session = fill(call.name, vals), fill(call.params, vals), fill(call.session, vals)
	if p.ownOnly {
		if c.legacy == "" {
			c.legacy = x.wire.legacySession(c.token)
		}
		call.session = c.legacy
	}
	x.note(call.name + call.params + call.session)
	a := x.wire.mcp(c.token, x.attacker.label, call)
	answers := []isoAnswer{a}
	if st := a.requestState(); p.confirm && st != "" {
		call.params = withConfirmation(call.params, st)
		answers = append(answers, x.wire.mcp(c.token, x.attacker.label, call))
	}
	return answers
}

// request shows what p sends with vals, for messages.
func (x *isoRunner) request(p *isoProbe, vals []string) string {
	if p.admin != "" {
		return p.admin + " " + fill(p.body, vals)
	}
	s := p.call.method + " " + fill(p.call.params, vals)
	if p.call.session != "" {
		s += " in session " + fill(p.call.session, vals)
	}
	return s
}

func fill(s string, vals []string) string {
	for i, v := range vals {
		s = strings.ReplaceAll(s, fmt.Sprintf("@@%d@@", i), v)
	}
	return s
}

// note records the victim's markers a request names: the caller knows
// them, and may get them back (its own audit log, for one, keeps them).
func (x *isoRunner) note(request string) {
	low := strings.ToLower(request)
	for m := range x.victim.markers {
		if strings.Contains(low, m) {
			x.sent[m] = true
		}
	}
}

// scan fails the test for each marker of the victim in a, unless the
// caller named it itself.
func (x *isoRunner) scan(where string, p *isoProbe, vals []string, a isoAnswer) {
	x.t.Helper()
	low := strings.ToLower(string(a.all))
	for m, planted := range x.victim.markers {
		if !x.sent[m] && strings.Contains(low, m) {
			x.fail("%s: the answer reveals %s of tenant %s (%q), which the caller never named\n  request: %s\n  answer: %s",
				where, planted, x.victim.name, m, x.request(p, vals), clip(a.all))
		}
	}
}

func (x *isoRunner) fail(format string, args ...any) {
	x.t.Helper()
	x.t.Errorf(format, args...)
	if x.findings++; x.findings >= 20 {
		x.t.Fatalf("stopping after %d findings", x.findings)
	}
}

// isoGens returns the probes: every MCP tool, content method, legacy
// session and admin RPC. It fails the test for a tool the attacker's
// owner lists, an admin RPC or a content method that none covers, and
// for a probe of an admin RPC the service no longer has.
func (x *isoRunner) gens() []isoGen {
	x.t.Helper()
	rpcs := map[string]bool{}
	for _, m := range adminv1.AdminService_ServiceDesc.Methods {
		rpcs[m.MethodName] = true
	}
	gens := append(isoToolGens(), isoContentGens()...)
	for _, g := range isoAdminGens() {
		if !rpcs[g.covers] {
			x.t.Errorf("the admin API has no RPC %s any more: drop its isolation probe", g.covers)
			continue
		}
		gens = append(gens, g)
	}
	covered := map[string]bool{}
	for _, g := range gens {
		covered[g.covers] = true
	}
	a := x.wire.mcp(x.attacker.owner, x.attacker.label, isoCall{method: "tools/list", params: "{}"})
	var list struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal(a.body, &list); err != nil || len(list.Result.Tools) == 0 {
		x.t.Fatalf("tools/list = %d %s", a.status, a.body)
	}
	want := []string{"resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get", "completion/complete"}
	for _, tool := range list.Result.Tools {
		want = append(want, tool.Name)
	}
	for m := range rpcs {
		want = append(want, m)
	}
	for _, w := range want {
		if !covered[w] {
			x.t.Errorf("%s has no isolation probe: add one to isoToolGens, isoContentGens or isoAdminGens", w)
		}
	}
	return gens
}

// clip shortens an answer for a message.
func clip(b []byte) string {
	const max = 1200
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
