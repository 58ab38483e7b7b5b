package tests

import (
	"encoding/base64"
	"strconv"
)

// isoToolGens are the probes of every MCP tool, each named by the tool
// it covers, and of a tool given a tenant argument.
func isoToolGens() []isoGen {
	return append([]isoGen{
		{"boards_list", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{}
			if g.rng.IntN(2) == 0 {
				g.cursor("boards_list", args)
			}
			return g.tool("boards_list", args)
		}},
		{"whoami", func(g *isoGenCtx) *isoProbe { return g.tool("whoami", map[string]any{}) }},
		{"tasks_get", func(g *isoGenCtx) *isoProbe {
			return g.tool("tasks_get", map[string]any{
				"ref": g.ref(), "include_comments": g.rng.IntN(2) == 0, "include_history": g.rng.IntN(2) == 0, "include_links": g.rng.IntN(2) == 0,
			})
		}},
		{"tasks_list", func(g *isoGenCtx) *isoProbe {
			// Filters naming the victim's labels, projects and words find
			// none of the caller's own tasks, as absent ones do.
			args := map[string]any{}
			g.someOf(
				func() { args["board"] = g.board() },
				func() { args["cursor"] = g.taskCursor() },
				func() { g.cursor("tasks_list", args) },
				func() { args["assignee"] = g.handle() },
				func() { args["label"] = g.label() },
				func() { args["project"] = g.project() },
				func() { args["text"] = g.word() },
			)
			if g.rng.IntN(2) == 0 {
				args["lane"] = g.lane()
			}
			if g.rng.IntN(2) == 0 {
				args["limit"] = 1 + g.rng.IntN(100)
			}
			if g.rng.IntN(3) == 0 {
				args["sort"] = pick(g.rng, []string{"ref", "updated", "position"})
			}
			if g.rng.IntN(4) == 0 {
				args["flagged"] = g.rng.IntN(2) == 0
			}
			if g.rng.IntN(4) == 0 {
				args["fields"] = []string{"title", "assignees", "labels"}
			}
			return g.exact(g.tool("tasks_list", args))
		}},
		{"tasks_create", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"title": "Probe " + g.letters(6), "lane": g.lane()}
			g.someOf(
				func() { args["board"] = g.board() },
				func() { args["assignees"] = []string{"me", g.handle()} },
				func() { args["links"] = []map[string]any{{"kind": g.linkKind(), "ref": g.ref()}} },
			)
			if g.rng.IntN(3) == 0 {
				args["labels"], args["project"] = []string{g.label()}, g.project()
			}
			g.maybeKey(args)
			return g.tool("tasks_create", args)
		}},
		{"tasks_update", func(g *isoGenCtx) *isoProbe {
			if g.rng.IntN(3) == 0 {
				// The caller's own task, linked to the victim's.
				g.p.what = " (linking a task of the caller's own tenant)"
				args := map[string]any{"ref": g.ownRef()}
				g.someOf(
					func() { args["add_links"] = []map[string]any{{"kind": g.linkKind(), "ref": g.ref()}} },
					func() { args["remove_links"] = []map[string]any{{"kind": g.linkKind(), "ref": g.ref()}} },
				)
				g.maybeKey(args)
				return g.tool("tasks_update", args)
			}
			args := map[string]any{"ref": g.ref()}
			g.someOf(
				func() { args["title"] = "Probe " + g.letters(6) },
				func() { args["note"] = "probe note" },
				func() { args["kind"] = pick(g.rng, []string{"task", "bug", "feature", "chore"}) },
				func() { args["expected_version"] = 1 + g.rng.IntN(3) },
				func() { args["add_labels"], args["project"] = []string{"probe"}, "probe" },
			)
			g.maybeKey(args)
			return g.tool("tasks_update", args)
		}},
		{"tasks_move", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"ref": g.ref(), "lane": g.lane()}
			if g.rng.IntN(2) == 0 {
				args["expected_version"] = 1 + g.rng.IntN(3)
			}
			if g.rng.IntN(3) == 0 {
				args["position"] = g.rng.IntN(3)
			}
			g.maybeKey(args)
			return g.tool("tasks_move", args)
		}},
		{"comments_add", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{"ref": g.ref(), "body": "probe comment"}
			g.maybeKey(args)
			return g.tool("comments_add", args)
		}},
		{"tasks_delete", func(g *isoGenCtx) *isoProbe { return g.confirmed("tasks_delete") }},
		{"tasks_restore", func(g *isoGenCtx) *isoProbe { return g.confirmed("tasks_restore") }},
		{"tasks_delete", func(g *isoGenCtx) *isoProbe {
			// Another tenant's confirmation, for its own ref: the state
			// is bound to its caller, whoever presents it.
			s := pick(g.rng, g.victim.ids.states)
			ref := g.use(s.ref, "T-"+strconv.Itoa(5000+g.rng.IntN(4000)))
			p := g.tool("tasks_delete", map[string]any{"ref": ref})
			p.what += " with the other tenant's requestState"
			p.call.params = withConfirmation(p.call.params, g.use(s.state, g.mutate(s.state)))
			p.call.caps = `{"elicitation":{}}`
			return p
		}},
		{"tasks_import", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{}
			drafts := []map[string]any{{"title": "Probe " + g.letters(6)}, {"title": "Probe " + g.letters(6), "lane": g.lane()}}
			g.someOf(func() { args["board"] = g.board() }, func() { drafts[g.rng.IntN(2)]["assignees"] = []string{g.handle()} })
			args["tasks"] = drafts
			return g.tool("tasks_import", args)
		}},
		{"audit_list", func(g *isoGenCtx) *isoProbe {
			args := map[string]any{}
			g.someOf(func() { args["member"] = g.member() }, func() { args["cursor"] = g.auditCursor() })
			if g.rng.IntN(3) == 0 {
				args["outcome"] = pick(g.rng, []string{"ok", "error", "refused", "NotFound"})
			}
			return g.tool("audit_list", args)
		}},
		{"tools/call with a tenant argument", func(g *isoGenCtx) *isoProbe {
			p := g.tool(pick(g.rng, []string{"boards_list", "tasks_list", "whoami", "audit_list", "members_list", "tasks_search", "work_next"}), map[string]any{"tenant": g.tenant()})
			p.what += " with a tenant argument"
			return p
		}},
	}, isoCatalogueGens()...)
}

func (g *isoGenCtx) linkKind() string {
	return pick(g.rng, []string{"blocks", "blocked_by", "relates_to", "duplicates"})
}

// confirmed is a probe of a tool that asks a person first, who says yes.
func (g *isoGenCtx) confirmed(tool string) *isoProbe {
	p := g.tool(tool, map[string]any{"ref": g.ref()})
	p.call.caps = `{"elicitation":{}}`
	p.confirm = true
	return p
}

// isoContentGens are the probes of resources, prompts and completion,
// in 2026-07-28 requests and in legacy sessions.
func isoContentGens() []isoGen {
	boardURI := func(g *isoGenCtx) string { return "taskwire://boards/" + g.board() + "/context" }
	prompt := func(g *isoGenCtx) map[string]any {
		p := map[string]any{"name": pick(g.rng, []string{"standup", "triage"})}
		if g.rng.IntN(4) > 0 {
			p["arguments"] = map[string]any{"board": g.board()}
		}
		return p
	}
	return []isoGen{
		{"resources/list", func(g *isoGenCtx) *isoProbe { return g.content("resources/list", "", map[string]any{}) }},
		{"resources/templates/list", func(g *isoGenCtx) *isoProbe {
			return g.content("resources/templates/list", "", map[string]any{})
		}},
		{"resources/read", func(g *isoGenCtx) *isoProbe {
			uri := boardURI(g)
			return g.content("resources/read", uri, map[string]any{"uri": uri})
		}},
		{"prompts/list", func(g *isoGenCtx) *isoProbe { return g.content("prompts/list", "", map[string]any{}) }},
		{"prompts/get", func(g *isoGenCtx) *isoProbe {
			p := prompt(g)
			return g.content("prompts/get", p["name"].(string), p)
		}},
		{"completion/complete", func(g *isoGenCtx) *isoProbe {
			ref := map[string]any{"type": "ref/prompt", "name": pick(g.rng, []string{"standup", "triage"})}
			arg := map[string]any{"name": "board"}
			switch g.rng.IntN(3) {
			case 0:
				slug := pick(g.rng, g.victim.ids.boards)
				n := 4 + g.rng.IntN(len(slug)-3)
				arg["value"] = g.use(slug[:n], g.name()[:n])
			case 1:
				arg["name"], arg["value"] = "ref", g.ref()
			default:
				ref = map[string]any{"type": "ref/resource", "uri": "taskwire://boards/{board}/context"}
				arg["value"] = g.board()
			}
			return g.content("completion/complete", "", map[string]any{"ref": ref, "argument": arg})
		}},
		// Legacy (2025-11-25) sessions: another tenant's session id, and
		// the caller's own session naming another tenant's things.
		{"legacy session", func(g *isoGenCtx) *isoProbe {
			s := pick(g.rng, g.victim.ids.sessions)
			p := g.content("tools/list", "", map[string]any{})
			p.what, p.call.legacy, p.call.session = "legacy tools/list in the other tenant's session", true, g.use(s, g.mutate(s))
			return p
		}},
		{"legacy tools/call", func(g *isoGenCtx) *isoProbe {
			p := g.tool("tasks_get", map[string]any{"ref": g.ref(), "include_comments": true})
			p.what, p.call.legacy, p.ownOnly = "legacy "+p.what, true, true
			return p
		}},
		{"legacy resources/read", func(g *isoGenCtx) *isoProbe {
			uri := boardURI(g)
			p := g.content("resources/read", uri, map[string]any{"uri": uri})
			p.what, p.call.legacy, p.ownOnly = "legacy resources/read", true, true
			return p
		}},
		{"legacy prompts/get", func(g *isoGenCtx) *isoProbe {
			p := g.content("prompts/get", "", map[string]any{"name": "standup", "arguments": map[string]any{"board": g.board()}})
			p.what, p.call.legacy, p.ownOnly = "legacy prompts/get", true, true
			return p
		}},
	}
}

// isoAdminGens are the probes of every admin RPC, each named by the RPC.
func isoAdminGens() []isoGen {
	roles := []string{"MEMBER_ROLE_OWNER", "MEMBER_ROLE_ADMIN", "MEMBER_ROLE_MEMBER", "MEMBER_ROLE_VIEWER"}
	refused := func(p *isoProbe) *isoProbe { p.refused = true; return p }
	return []isoGen{
		{"CreateTenant", func(g *isoGenCtx) *isoProbe {
			return refused(g.rpc("CreateTenant", map[string]any{"slug": g.use(g.victim.slug, g.name()), "name": "Probe", "ownerHandle": g.handle()}))
		}},
		{"GetTenant", func(g *isoGenCtx) *isoProbe { return g.rpc("GetTenant", map[string]any{"tenant": g.tenant()}) }},
		{"ListTenants", func(g *isoGenCtx) *isoProbe {
			page := func(id int) string { return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(id))) }
			return refused(g.rpc("ListTenants", map[string]any{"pageToken": g.use(page(g.victim.id), page(900000+g.rng.IntN(99999)))}))
		}},
		{"AddMember", func(g *isoGenCtx) *isoProbe {
			req := map[string]any{"handle": g.name(), "displayName": "Probe"}
			if g.rng.IntN(2) == 0 {
				req["tenant"] = g.tenant()
			} else {
				req["kind"], req["sponsor"] = "MEMBER_KIND_ASSISTANT", g.handle()
			}
			return g.rpc("AddMember", req)
		}},
		{"ListMembers", func(g *isoGenCtx) *isoProbe {
			req := map[string]any{"showRemoved": g.rng.IntN(2) == 0}
			g.someOf(func() { req["tenant"] = g.tenant() }, func() { req["pageToken"] = g.memberPage() })
			return g.rpc("ListMembers", req)
		}},
		{"SetMemberRole", func(g *isoGenCtx) *isoProbe {
			return g.rpc("SetMemberRole", g.maybeTenant(map[string]any{"handle": g.handle(), "role": pick(g.rng, roles)}))
		}},
		{"RemoveMember", func(g *isoGenCtx) *isoProbe {
			return g.rpc("RemoveMember", g.maybeTenant(map[string]any{"handle": g.handle()}))
		}},
		{"CreateToken", func(g *isoGenCtx) *isoProbe {
			return g.rpc("CreateToken", g.maybeTenant(map[string]any{"member": g.member(), "scopes": []string{"read"}, "label": "probe"}))
		}},
		{"ListTokens", func(g *isoGenCtx) *isoProbe {
			req := map[string]any{}
			g.someOf(func() { req["tenant"] = g.tenant() }, func() { req["member"] = g.member() }, func() { req["pageToken"] = g.tokenPage() })
			return g.rpc("ListTokens", req)
		}},
		{"RevokeToken", func(g *isoGenCtx) *isoProbe {
			return g.rpc("RevokeToken", g.maybeTenant(map[string]any{"id": g.tokenID()}))
		}},
		{"RevokeMemberTokens", func(g *isoGenCtx) *isoProbe {
			return g.rpc("RevokeMemberTokens", g.maybeTenant(map[string]any{"member": g.member()}))
		}},
		{"CreateBoard", func(g *isoGenCtx) *isoProbe {
			// In the caller's own tenant the victim's slug is as free as an
			// absent one; the empty name, checked after, keeps the probe
			// from creating a board.
			return g.rpc("CreateBoard", g.maybeTenant(map[string]any{"board": g.board(), "name": " "}))
		}},
		{"ListBoards", func(g *isoGenCtx) *isoProbe {
			return g.rpc("ListBoards", map[string]any{"tenant": g.tenant(), "includeArchived": g.rng.IntN(2) == 0})
		}},
		{"ArchiveBoard", func(g *isoGenCtx) *isoProbe {
			return g.rpc("ArchiveBoard", g.maybeTenant(map[string]any{"board": g.board(), "archived": g.rng.IntN(2) == 0}))
		}},
		{"CreateSignInLink", func(g *isoGenCtx) *isoProbe {
			return g.rpc("CreateSignInLink", g.maybeTenant(map[string]any{"handle": g.handle(), "ttl": "3600s"}))
		}},
		{"InvitePerson", func(g *isoGenCtx) *isoProbe {
			// The bell in the name, checked after the tenant and the
			// handle, keeps the probe from adding a member.
			return g.rpc("InvitePerson", g.maybeTenant(map[string]any{
				"email": g.name() + "@example.com", "handle": g.handle(), "displayName": "Probe\u0007",
			}))
		}},
		{"RotateSigningKey", func(g *isoGenCtx) *isoProbe { return refused(g.rpc("RotateSigningKey", map[string]any{})) }},
		{"ListSigningKeys", func(g *isoGenCtx) *isoProbe { return refused(g.rpc("ListSigningKeys", map[string]any{})) }},
		{"SetOperator", func(g *isoGenCtx) *isoProbe {
			return refused(g.rpc("SetOperator", map[string]any{"email": g.name() + "@example.com", "operator": g.rng.IntN(2) == 0}))
		}},
		{"ListOperators", func(g *isoGenCtx) *isoProbe { return refused(g.rpc("ListOperators", map[string]any{})) }},
	}
}
