package catalog_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/taskwire/taskwire/internal/caller/authz"
)

// metaschema2020 is the JSON Schema 2020-12 metaschema, which the
// validator embeds: compiling it reads nothing from the network.
const metaschema2020 = "https://json-schema.org/draft/2020-12/schema"

// TestSchemasAreJSONSchema2020: every tool's inputSchema and outputSchema
// is an object schema that validates against the 2020-12 metaschema and
// compiles as 2020-12, as MCP requires of schemas without $schema.
func TestSchemasAreJSONSchema2020(t *testing.T) {
	meta, err := jsonschema.NewCompiler().Compile(metaschema2020)
	if err != nil {
		t.Fatalf("compile the 2020-12 metaschema: %v", err)
	}
	for _, tool := range newCatalog(t).Tools() {
		schemas := map[string]json.RawMessage{"inputSchema": tool.Def.InputSchema}
		if tool.Def.OutputSchema != nil {
			schemas["outputSchema"] = tool.Def.OutputSchema
		}
		for which, raw := range schemas {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Errorf("%s %s is not JSON: %v", tool.Def.Name, which, err)
				continue
			}
			if err := meta.Validate(doc); err != nil {
				t.Errorf("%s %s is not valid JSON Schema 2020-12: %v", tool.Def.Name, which, err)
			}
			obj, _ := doc.(map[string]any)
			if obj["type"] != "object" {
				t.Errorf("%s %s type = %v, want object", tool.Def.Name, which, obj["type"])
			}
			if s, ok := obj["$schema"]; ok && s != metaschema2020 {
				t.Errorf("%s %s $schema = %v, want none or %s", tool.Def.Name, which, s, metaschema2020)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			url := "taskwire:test/" + tool.Def.Name + "/" + which
			if err := c.AddResource(url, doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile(url); err != nil {
				t.Errorf("%s %s does not compile as 2020-12: %v", tool.Def.Name, which, err)
			}
		}
	}
}

// toolName is noun_verb in lower case; whoami is a word of its own.
var toolName = regexp.MustCompile(`^[a-z]+(_[a-z]+)?$`)

// TestToolsAreDescribed: every tool has a name, a title and a description
// a model can use, a known toolset and scope, and a known least role when
// it has one.
func TestToolsAreDescribed(t *testing.T) {
	for _, tool := range newCatalog(t).Tools() {
		d := tool.Def
		if !toolName.MatchString(d.Name) {
			t.Errorf("tool name %q, want noun_verb in lower case", d.Name)
		}
		if d.Title == "" || strings.TrimSpace(d.Title) != d.Title {
			t.Errorf("%s title = %q, want a short title", d.Name, d.Title)
		}
		if len(d.Description) < 40 || !strings.HasSuffix(d.Description, ".") {
			t.Errorf("%s description = %q, want sentences saying when to use it and what it returns", d.Name, d.Description)
		}
		if !authz.ValidToolset(tool.Toolset) {
			t.Errorf("%s toolset = %q, want one of %v", d.Name, tool.Toolset, authz.AllToolsets)
		}
		if !authz.Valid(tool.Scope) {
			t.Errorf("%s scope = %q, want one of %v", d.Name, tool.Scope, authz.AllScopes)
		}
		if tool.MinRole != "" && !authz.ValidRole(tool.MinRole) {
			t.Errorf("%s min_role = %q, want one of %v", d.Name, tool.MinRole, authz.AllRoles)
		}
		if !strings.HasPrefix(d.Name, tool.Toolset+"_") && !sharedToolsetNouns[d.Name] {
			t.Errorf("%s is in toolset %s but not named after it; add it to sharedToolsetNouns if that is right", d.Name, tool.Toolset)
		}
	}
}

// sharedToolsetNouns are the tools whose noun is not their toolset's name:
// the context toolset holds what to know before working (boards, members,
// the caller).
var sharedToolsetNouns = map[string]bool{
	"boards_list": true, "boards_get": true, "boards_update": true, "boards_create": true, "members_list": true, "whoami": true,
}

// notDestructive are the tools that ask a person to confirm although they
// destroy nothing, with the reason they ask.
var notDestructive = map[string]string{
	"tasks_restore": "it brings a deleted task back onto the board, where people and assistants act on it again",
	"work_approve":  "it lets assistants act on a task with a plan: only a person may allow that, so an assistant's proposal waits for one",
}

// TestHintsAreHonest: the annotations say what the tools do. A read-only
// tool changes nothing, so it is idempotent, needs only read and claims no
// destruction; a tool that changes something needs more than read; a tool
// that asks a person to confirm is destructive, or says above why not.
func TestHintsAreHonest(t *testing.T) {
	for _, tool := range newCatalog(t).Tools() {
		name, a := tool.Def.Name, tool.Def.Annotations
		if a == nil || a.ReadOnlyHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s annotations = %+v, want every hint stated", name, a)
			continue
		}
		readOnly := *a.ReadOnlyHint
		destructive := a.DestructiveHint != nil && *a.DestructiveHint
		switch {
		case readOnly && !*a.IdempotentHint:
			t.Errorf("%s is read-only but not idempotent", name)
		case readOnly && a.DestructiveHint != nil:
			t.Errorf("%s is read-only but states destructiveHint", name)
		case readOnly && tool.Scope != authz.ScopeRead:
			t.Errorf("%s is read-only but needs the %s scope", name, tool.Scope)
		case !readOnly && a.DestructiveHint == nil:
			t.Errorf("%s changes things but does not say whether destructively", name)
		case !readOnly && tool.Scope == authz.ScopeRead:
			t.Errorf("%s changes things with only the read scope", name)
		}
		_, why := notDestructive[name]
		if tool.Confirm != "" && !destructive && !why {
			t.Errorf("%s asks a person to confirm but is not destructive; mark it destructive or say why in notDestructive", name)
		}
		if why && (tool.Confirm == "" || destructive) {
			t.Errorf("%s is in notDestructive but does not ask to confirm or is destructive: remove it there", name)
		}
		if *a.OpenWorldHint {
			t.Errorf("%s claims an open world, but every tool stays on the board", name)
		}
	}
}
