package frontdoor

import (
	"go/build"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// forbiddenDeps are the import paths (and prefixes, ending in "/") the
// front door and the bridge must never depend on: ent, the store and SQL
// drivers. The front door reaches data only through the workers, so a
// front door that can be scaled out and exposed holds no database code.
var forbiddenDeps = []string{
	"entgo.io/",
	"github.com/taskwire/taskwire/internal/ent",
	"github.com/taskwire/taskwire/internal/store",
	"modernc.org/sqlite",
	"github.com/jackc/pgx",
	"github.com/lib/pq",
	"github.com/mattn/go-sqlite3",
	"github.com/go-sql-driver/mysql",
	"database/sql/driver",
}

// forbidden reports whether pkg is, or lies under, one of forbiddenDeps.
func forbidden(pkg string) bool {
	for _, f := range forbiddenDeps {
		prefix := strings.TrimSuffix(f, "/")
		if pkg == prefix || strings.HasPrefix(pkg, prefix+"/") {
			return true
		}
	}
	return false
}

// goCommand is the go command of the toolchain running the test (its
// GOROOT, as go/build knows it), else the one on PATH, else "".
func goCommand() string {
	if root := build.Default.GOROOT; root != "" {
		if p, err := exec.LookPath(filepath.Join(root, "bin", "go")); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return ""
}

// listDeps runs go list -deps on patterns from the module's root.
func listDeps(t *testing.T, patterns ...string) []string {
	t.Helper()
	goTool := goCommand()
	if goTool == "" {
		t.Skip("no go command found (neither in GOROOT/bin nor on PATH): cannot list the dependencies")
	}
	cmd := exec.Command(goTool, append([]string{"list", "-deps"}, patterns...)...)
	cmd.Dir = ".." // the module's root
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %s", strings.Join(patterns, " "), msg)
	}
	return strings.Fields(string(out))
}

// TestNoDatabaseInFrontDoor: the front door and the bridge never pull in
// ent, the store or a SQL driver, whatever a change imports.
func TestNoDatabaseInFrontDoor(t *testing.T) {
	var bad []string
	for _, pkg := range listDeps(t, "./frontdoor/...", "./cmd/taskwire-bridge") {
		if forbidden(pkg) {
			bad = append(bad, pkg)
		}
	}
	if len(bad) > 0 {
		t.Errorf("the front door or the bridge depends on %d forbidden packages (they must reach data only through the workers; "+
			"`go mod why PACKAGE` shows how):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestTelemetryIndependentOfFrontDoor: platform code must not depend on a
// component; the front door's observer contract is in
// internal/telemetry/mcpobserve.
func TestTelemetryIndependentOfFrontDoor(t *testing.T) {
	for _, pkg := range listDeps(t, "./internal/telemetry/...") {
		if pkg == "github.com/taskwire/taskwire/frontdoor" || strings.HasPrefix(pkg, "github.com/taskwire/taskwire/frontdoor/") {
			t.Errorf("internal/telemetry depends on %s", pkg)
		}
	}
}

func TestForbidden(t *testing.T) {
	for pkg, want := range map[string]bool{
		"entgo.io/ent":                                   true,
		"entgo.io/ent/dialect/sql":                       true,
		"github.com/taskwire/taskwire/internal/ent":      true,
		"github.com/taskwire/taskwire/internal/ent/task": true,
		"github.com/taskwire/taskwire/internal/store":    true,
		"github.com/taskwire/taskwire/internal/entropy":  false,
		"github.com/jackc/pgx/v5/stdlib":                 true,
		"modernc.org/sqlite":                             true,
		"modernc.org/sqlite3":                            false,
		"database/sql":                                   false,
		"database/sql/driver":                            true,
		"github.com/taskwire/taskwire/frontdoor/jsonrpc": false,
	} {
		if got := forbidden(pkg); got != want {
			t.Errorf("forbidden(%q) = %t, want %t", pkg, got, want)
		}
	}
}
