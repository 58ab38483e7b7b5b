package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// command is one command line whose flags the page lists.
type command struct {
	program string   // taskwire or taskwire-bridge
	args    []string // e.g. token create
	flags   []flagDoc
}

// name is the command as people type it.
func (c command) name() string {
	return strings.TrimSpace(c.program + " " + strings.Join(c.args, " "))
}

// commands runs the binaries in dir for their help and returns every
// command with its flags: those `taskwire help` lists, each command
// without flags of its own (admin) expanded into the subcommands its help
// lists, and taskwire-bridge.
func commands(dir string) ([]command, error) {
	top, err := helpOf(dir, "taskwire", "help")
	if err != nil {
		return nil, err
	}
	var out []command
	for _, args := range topCommands(top) {
		got, err := leaves(dir, args)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	bridge, err := helpOf(dir, "taskwire-bridge", "-h")
	if err != nil {
		return nil, err
	}
	return append(out, command{program: "taskwire-bridge", flags: parseDefaults(bridge)}), nil
}

// leaves returns the command args with its flags, or, when its help lists
// no flags but subcommands, those subcommands; a command with neither is
// listed with no flags.
func leaves(dir string, args []string) ([]command, error) {
	help, err := helpOf(dir, "taskwire", append(args, "-h")...)
	if err != nil {
		return nil, err
	}
	if flags := parseDefaults(help); len(flags) > 0 {
		return []command{{program: "taskwire", args: args, flags: flags}}, nil
	}
	var out []command
	for _, sub := range subCommands(help) {
		got, err := leaves(dir, append(append([]string(nil), args...), sub...))
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	if len(out) == 0 { // a command without flags, listed all the same
		return []command{{program: "taskwire", args: args}}, nil
	}
	return out, nil
}

// helpOf runs program from dir with args and returns what it printed. It
// runs with an environment of PATH alone in an empty directory, so that
// no TASKWIRE_* variable or local file changes a default shown.
func helpOf(dir, program string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(dir, program), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", program, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// word is a command name: lower-case letters and dashes.
var word = regexp.MustCompile(`^[a-z][a-z-]*$`)

// topCommands reads the commands from the usage lines of `taskwire help`
// ("  taskwire token create --member HANDLE"): the words after
// "taskwire" up to the first that is not a command name.
func topCommands(help string) [][]string {
	var out [][]string
	seen := map[string]bool{}
	for _, line := range strings.Split(help, "\n") {
		fields := strings.Fields(line)
		if !strings.HasPrefix(line, "  ") || len(fields) < 2 || fields[0] != "taskwire" {
			continue
		}
		if args := names(fields[1:]); len(args) > 0 && !seen[strings.Join(args, " ")] {
			seen[strings.Join(args, " ")] = true
			out = append(out, args)
		}
	}
	return out
}

// subCommands reads subcommands from a help that lists them one a line,
// indented by two spaces ("  tenants create SLUG --owner HANDLE").
func subCommands(help string) [][]string {
	var out [][]string
	seen := map[string]bool{}
	for _, line := range strings.Split(help, "\n") {
		if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "   ") {
			continue
		}
		if args := names(strings.Fields(line)); len(args) > 0 && !seen[strings.Join(args, " ")] {
			seen[strings.Join(args, " ")] = true
			out = append(out, args)
		}
	}
	return out
}

// names is the leading run of command names in fields.
func names(fields []string) []string {
	var out []string
	for _, f := range fields {
		if !word.MatchString(f) {
			break
		}
		out = append(out, f)
	}
	return out
}
