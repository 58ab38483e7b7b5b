package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// errHelpShown is what a command returns once it printed the usage it was
// asked for (-h, --help, help): no failure, so the process exits 0.
// flag.ErrHelp, by contrast, means a command was missing or unknown and
// the usage went to standard error: the process exits 2.
var errHelpShown = errors.New("help shown")

// exitCode is the status the process exits with after err.
func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 2
	}
	return 1
}

// isHelp reports whether arg asks for help instead of naming a command.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// showHelp prints usage on stdout for a request for help.
func showHelp(stdout io.Writer, usage string) error {
	fmt.Fprint(stdout, usage)
	return errHelpShown
}

// parseFlags parses args into fs. Asked for help (-h, --help), it prints
// the usage on stdout and returns errHelpShown; a bad flag gets flag's
// error line and the usage on standard error (fs's output), as before.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	usage := fs.Usage
	if usage == nil {
		usage = func() {
			fmt.Fprintf(fs.Output(), "usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
	}
	fs.Usage = func() {} // flag calls it for help and for errors alike
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		errOut := fs.Output()
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(errOut)
		return errHelpShown
	case err != nil:
		fs.Usage()
	}
	return err
}

// parseWithArgs parses flags that may come before or after positional
// arguments, and returns the positional ones.
func parseWithArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, stdout); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
