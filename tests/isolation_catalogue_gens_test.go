package tests

import "maps"

// isoCatalogueGens are the probes of the tools of the full catalogue
// (boards, members, context, search, assignment, flags, comments, the
// work queue), each named by the tool it covers, and of the victim's
// idempotency keys replayed with the victim's own arguments.
func isoCatalogueGens() []isoGen {
	return []isoGen{
		{"boards_get", func(g *isoGenCtx) *isoProbe { return g.tool("boards_get", map[string]any{"board": g.board()}) }},
		{"boards_update", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"board": g.board()}
			g.someOf(
				func() { args["name"] = "Probe " + g.letters(6) },
				func() { args["rules"] = "probe rules" },
				func() { args["wip_limits"] = []map[string]any{{"lane": g.lane(), "limit": 1 + g.rng.IntN(5)}} },
			)
			g.maybeKey(args)
			return g.tool("boards_update", args)
		}},
		{"boards_create", func(g *isoGenCtx) *isoProbe {
			// The victim's slug is as free in the caller's tenant as an
			// absent one: both pass the check that the slug is free, then
			// fail on the empty name (checked after it), so the probe
			// creates no board whose slug would mislead later probes.
			args := map[string]any{"slug": g.board(), "name": " "}
			g.maybeKey(args)
			return g.tool("boards_create", args)
		}},
		{"members_list", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{}
			g.cursor("members_list", args)
			return g.exact(g.tool("members_list", args))
		}},
		{"context_get", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{}
			g.someOf(func() { args["board"] = g.board() }, func() { g.cursor("context_get", args) })
			return g.exact(g.tool("context_get", args))
		}},
		{"context_add", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"board": g.board(), "body": "probe note"}
			g.maybeKey(args)
			return g.tool("context_add", args)
		}},
		{"tasks_search", func(g *isoGenCtx) *isoProbe {
			// Words found only in the victim's tasks: the caller's own
			// tasks answer both alike, with nothing.
			args := map[string]any{"query": g.word()}
			if g.rng.IntN(3) == 0 {
				args["query"] = args["query"].(string) + " " + g.word()
			}
			if g.rng.IntN(3) == 0 {
				args["include_done"] = true
			}
			switch g.rng.IntN(4) {
			case 0:
				args["board"] = g.board()
			case 1:
				g.cursor("tasks_search", args)
			}
			return g.exact(g.tool("tasks_search", args))
		}},
		{"tasks_assign", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"ref": g.ref()}
			handles := func() []string { return []string{g.handle()} }
			if g.rng.IntN(2) == 0 {
				// The caller's own task, the victim's members.
				args["ref"] = g.ownRef()
				g.p.what = " (on a task of the caller's own tenant)"
				handles = func() []string { return []string{"me", g.handle()} }
			}
			g.someOf(func() { args["add"] = handles() }, func() { args["remove"] = handles() })
			if g.rng.IntN(3) == 0 {
				args["expected_version"] = 1 + g.rng.IntN(3)
			}
			g.maybeKey(args)
			return g.tool("tasks_assign", args)
		}},
		{"tasks_flag", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"ref": g.ref(), "flagged": g.rng.IntN(2) == 0, "reason": "probe reason"}
			if g.rng.IntN(3) == 0 {
				args["expected_version"] = 1 + g.rng.IntN(3)
			}
			g.maybeKey(args)
			return g.tool("tasks_flag", args)
		}},
		{"comments_list", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{}
			g.someOf(func() { args["ref"] = g.ref() }, func() { g.cursor("comments_list", args) })
			if _, ok := args["ref"]; !ok {
				args["ref"] = g.ownRef()
			}
			return g.exact(g.tool("comments_list", args))
		}},
		{"comments_edit", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"id": g.commentID(), "body": "probe edit"}
			if g.rng.IntN(2) == 0 {
				args["expected_version"] = 1 + g.rng.IntN(2)
			}
			g.maybeKey(args)
			return g.tool("comments_edit", args)
		}},
		{"work_approve", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"ref": g.ref(), "plan": "probe plan"}
			if g.rng.IntN(2) == 0 {
				args["lease_minutes"], args["max_claims"] = 1+g.rng.IntN(60), 1+g.rng.IntN(5)
			}
			if g.rng.IntN(3) == 0 {
				args["expected_version"] = 1 + g.rng.IntN(3)
			}
			g.maybeKey(args)
			return g.tool("work_approve", args)
		}},
		{"work_next", func(g *isoGenCtx) *isoProbe {
			// With the victim's key alone it claims the caller's own
			// work, if any waits: never the victim's claim.
			args := map[string]any{}
			g.someOf(func() { args["board"] = g.board() }, func() { args["idempotency_key"] = g.idemKey(pick(g.rng, g.victim.ids.keyed).key) })
			return g.tool("work_next", args)
		}},
		{"work_heartbeat", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{}
			g.lease(args)
			return g.tool("work_heartbeat", args)
		}},
		{"work_release", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"reason": "probe reason"}
			g.lease(args)
			g.maybeKey(args)
			return g.tool("work_release", args)
		}},
		{"work_complete", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"test_status": pick(g.rng, []string{"passed", "failed", "not_run"}), "notes": "probe notes"}
			g.lease(args)
			g.maybeKey(args)
			return g.tool("work_complete", args)
		}},
		{"idempotency key replayed", func(g *isoGenCtx) *isoProbe {
			// The victim's own call, key and arguments: a write of the
			// caller's own tenant, or a refusal, never the victim's result.
			k := pick(g.rng, g.victim.ids.keyed)
			args := maps.Clone(k.args)
			args["idempotency_key"] = g.idemKey(k.key)
			p := g.tool(k.tool, args)
			p.what += " with the other tenant's idempotency key and arguments"
			return p
		}},
	}
}

// exact marks p as a read whose success must be worded as its twin's.
func (g *isoGenCtx) exact(p *isoProbe) *isoProbe {
	p.exact = true
	return p
}
