package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// help is what a taskwire command prints for -h: a header, then the flag
// package's PrintDefaults, with taskwire's env notes in the usages.
const help = "usage: taskwire demo [flags]\n" +
	"(an id that starts with a dash goes after --)\n" +
	"  -addr string\n" +
	"    \tHTTP listen address (env TASKWIRE_ADDR) (default \"127.0.0.1:8080\")\n" +
	"  -db string\n" +
	"    \tdatabase: sqlite:<path> or postgres://… (env TASKWIRE_DB; default sqlite in the data directory)\n" +
	"  -grace duration\n" +
	"    \thow long shutdown waits (env TASKWIRE_GRACE) (default 15s)\n" +
	"  -migrate taskwire migrate\n" +
	"    \tmigrate first; deployments run taskwire migrate (env TASKWIRE_MIGRATE=true)\n" +
	"  -name string\n" +
	"    \tthe display name (default the slug)\n" +
	"  -token string\n" +
	"    \tthe secret (env TASKWIRE_TOKEN); MCP tokens never administer\n" +
	"  -v\tbe verbose\n" +
	"  -workers string\n" +
	"    \tthe workers: host:port, or dns:///name:port\n" +
	"    \tto follow a DNS name (env TASKWIRE_WORKERS; required)\n" +
	"\n" +
	"Every command takes:\n" +
	"  --url URL   the server\n"

func TestParseDefaults(t *testing.T) {
	got := parseDefaults(help)
	want := []flagDoc{
		{name: "addr", typ: "string", env: "TASKWIRE_ADDR", def: "127.0.0.1:8080", literal: true, usage: "HTTP listen address"},
		{name: "db", typ: "string", env: "TASKWIRE_DB", def: "sqlite in the data directory", usage: "database: sqlite:<path> or postgres://…"},
		{name: "grace", typ: "duration", env: "TASKWIRE_GRACE", def: "15s", literal: true, usage: "how long shutdown waits"},
		{name: "migrate", env: "TASKWIRE_MIGRATE=true", usage: "migrate first; deployments run taskwire migrate"},
		{name: "name", typ: "string", def: "the slug", usage: "the display name"},
		{name: "token", typ: "string", env: "TASKWIRE_TOKEN", usage: "the secret; MCP tokens never administer"},
		{name: "v", usage: "be verbose"},
		{name: "workers", typ: "string", env: "TASKWIRE_WORKERS", def: "required", usage: "the workers: host:port, or dns:///name:port to follow a DNS name"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(flagDoc{})); diff != "" {
		t.Errorf("parseDefaults (-want +got):\n%s", diff)
	}
}

func TestCommandNames(t *testing.T) {
	top := "Usage:\n" +
		"  taskwire serve [flags]                 run Taskwire\n" +
		"  taskwire frontdoor --workers ... [flags]\n" +
		"                                         run a front door\n" +
		"  taskwire token create --member HANDLE [--admin]\n" +
		"  taskwire token revoke JTI | --member HANDLE\n" +
		"  taskwire admin <tenants|members|tokens> <command>\n" +
		"Run \"taskwire serve --help\" for its flags.\n"
	want := [][]string{{"serve"}, {"frontdoor"}, {"token", "create"}, {"token", "revoke"}, {"admin"}}
	if diff := cmp.Diff(want, topCommands(top)); diff != "" {
		t.Errorf("topCommands (-want +got):\n%s", diff)
	}
	admin := "usage: taskwire admin <tenants|keys> <command> [flags]\n\n" +
		"  tenants create SLUG --owner HANDLE [--name NAME]\n" +
		"  members set-role HANDLE owner|admin\n" +
		"  tokens create --member HANDLE\n" +
		"  tokens create --member HANDLE --admin\n" +
		"  keys rotate                (operators)\n\n" +
		"Every command takes:\n" +
		"  --url URL                  the Taskwire server\n" +
		"                             default the local public URL\n"
	want = [][]string{{"tenants", "create"}, {"members", "set-role"}, {"tokens", "create"}, {"keys", "rotate"}}
	if diff := cmp.Diff(want, subCommands(admin)); diff != "" {
		t.Errorf("subCommands (-want +got):\n%s", diff)
	}
}

// TestRender: flags that commands of a group show alike are one row, a
// flag they show differently one row each, and cells stay in their column.
func TestRender(t *testing.T) {
	addr := flagDoc{name: "addr", typ: "string", env: "TASKWIRE_ADDR", def: "127.0.0.1:8080", literal: true, usage: "HTTP listen address"}
	got := render([]command{
		{program: "taskwire", args: []string{"serve"}, flags: []flagDoc{addr, {name: "db", typ: "string", def: "sqlite in <data>", usage: "a | b"}}},
		{program: "taskwire", args: []string{"worker"}, flags: []flagDoc{addr, {name: "db", typ: "string", def: "required", usage: "database"}}},
		{program: "taskwire", args: []string{"token", "create"}, flags: []flagDoc{{name: "admin", usage: "mint an admin token"}}},
	})
	for _, want := range []string{
		"### taskwire\n\n`taskwire serve`, `taskwire worker`.\n",
		"| `--addr` | `TASKWIRE_ADDR` | `127.0.0.1:8080` | all | HTTP listen address |\n",
		"| `--db` | - | sqlite in \\<data> | serve | a \\| b |\n",
		"| `--db` | - | required | worker | database |\n",
		"### taskwire token\n\n`taskwire token create`.\n",
		"| `--admin` | - | off | all | mint an admin token |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
}
