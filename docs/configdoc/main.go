// Command configdoc writes the table of every flag of every taskwire
// command, with its environment variable and default, into
// docs/configuration.md between the markers
//
//	<!-- flags:begin -->
//	<!-- flags:end -->
//
// It builds cmd/taskwire and cmd/taskwire-bridge into a temporary
// directory and reads what they print for -h (the standard flag package's
// PrintDefaults), instead of importing package main: the table then
// describes the binaries people run, whatever the code behind the flags
// looks like. The commands come from `taskwire help` and `taskwire admin
// -h`, so a new command is listed without a change here. `go generate
// ./...` runs it; CI fails when that changes the page.
package main

//go:generate go run . -doc ../configuration.md

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/taskwire/taskwire/internal/markers"
)

func main() {
	doc := flag.String("doc", "docs/configuration.md", "the Markdown page to write the tables into")
	flag.Parse()
	if err := run(*doc); err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
}

// run rewrites the tables in the page at path, leaving the file alone when
// they are current.
func run(path string) error {
	dir, err := os.MkdirTemp("", "configdoc")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := build(dir); err != nil {
		return err
	}
	cmds, err := commands(dir)
	if err != nil {
		return err
	}
	return markers.Rewrite(path, "flags", render(cmds))
}

// build compiles both commands into dir.
func build(dir string) error {
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/taskwire/taskwire/cmd/taskwire", "github.com/taskwire/taskwire/cmd/taskwire-bridge")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}
