// Package command runs the commands of askuser's three programs (askuserd,
// askuser-client, askuser-mcp) one way: `PROGRAM COMMAND [flags] [args]`,
// help asked for on stdout, a mistake on stderr with the command or flag
// most likely meant, and one set of exit codes. A command parses its flags
// into its own options and then runs, so that parsing is tested apart from
// the work. The streams are passed in, never taken from os. It knows
// nothing of the daemon, its config or its protocol.
package command

import (
	"flag"
	"io"
)

// Streams are a command's standard input, output and error.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// Run is a command's work once its flags are parsed: args are its
// positional arguments. The error it returns becomes the exit code: nil 0,
// an Exit its own, a UsageError 2, anything else (said on stderr) 1 or what
// Program.FailureCode makes of it.
type Run func(args []string, s Streams) error

// Command is one subcommand, or a program's default command.
type Command struct {
	Name    string // "" for a program's default command
	Summary string // one line, for the program's help
	// Synopsis follows "usage: PROGRAM " in the command's help: its name,
	// its flags in short, and any paragraphs that explain it.
	Synopsis string
	Args     Args
	// Raw: the arguments are the command's own, handed to Run unparsed
	// (a command that runs another program with them).
	Raw bool
	// Setup registers the command's flags, each into the options it
	// returns a Run for. It is called once per run, before parsing.
	Setup func(fs *flag.FlagSet) Run
	// NotRun, when set, learns that parsing ended the command before it ran
	// (help asked for: flag.ErrHelp; or a usage mistake): for a daemon whose
	// starter waits to hear whether it runs.
	NotRun func(err error)
}

// Args bounds a command's positional arguments; Max < 0 is no bound. What
// names them in a refusal ("request ID"). The zero value takes none.
type Args struct {
	Min, Max int
	What     string
}

var (
	NoArgs  = Args{}
	AnyArgs = Args{Max: -1}
)

// check refuses a number of arguments the command does not take; word is
// the command as the message names it.
func (a Args) check(word string, pos []string) error {
	n := len(pos)
	switch {
	case a.Max == 0 && n > 0:
		return Usagef("%s takes no arguments", word)
	case a.Max == 1 && n > 1 && a.Min == 0:
		return Usagef("want at most one %s, got %d arguments", a.What, n)
	case a.Min == 1 && a.Max == 1 && n != 1:
		return Usagef("want one %s, got %d arguments", a.What, n)
	case n < a.Min:
		return Usagef("want a %s", a.What)
	}
	return nil
}
