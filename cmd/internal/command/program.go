package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"askuser/internal/didyoumean"
)

// Program is one of askuser's programs and its commands.
type Program struct {
	Name     string     // as the user runs it: "askuserd", "askuser-client mcp"
	Commands []*Command // in the order help lists them
	// Default runs when no command is named: no arguments, or flags first
	// (askuserd's pane, askuser-mcp's server). Without one a command is
	// required.
	Default *Command
	// FailureCode, when set, is the exit code of a failure other than 1
	// (askuser-client's 4 for a daemon unreachable); 0 leaves it 1.
	FailureCode func(error) int
}

// Run runs the command args name and returns the exit code. Help asked for
// (-h, --help, help) is printed on stdout with exit 0; no command where one
// is needed, or an unknown one, is a usage error on stderr with exit 2.
func (p *Program) Run(args []string, s Streams) int {
	if len(args) == 0 {
		if p.Default != nil {
			return p.run(p.Default, nil, s)
		}
		p.Usage(s.Err)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if args[0] == "help" && len(args) > 1 && len(p.Commands) > 0 {
			// `help serve` as in git and go: that command's help.
			if c := p.command(args[1]); c != nil {
				return p.run(c, []string{"--help"}, s)
			}
			return p.unknown(args[1], s)
		}
		p.Usage(s.Out)
		return ExitOK
	}
	if c := p.command(args[0]); c != nil {
		return p.run(c, args[1:], s)
	}
	// A word that is not a flag is a mistyped command, in a program that
	// has commands; the default command's flags come first.
	if p.Default != nil && (len(p.Commands) == 0 || strings.HasPrefix(args[0], "-")) {
		return p.run(p.Default, args, s)
	}
	return p.unknown(args[0], s)
}

// command is the command named name, or nil.
func (p *Program) command(name string) *Command {
	for _, c := range p.Commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// unknown refuses a command name that is none of the program's, with the
// one most likely meant.
func (p *Program) unknown(name string, s Streams) int {
	fmt.Fprintf(s.Err, "%s: unknown command %q", p.Name, name)
	if guess := didyoumean.Nearest(name, p.names()); guess != "" {
		fmt.Fprintf(s.Err, "; did you mean %q?", guess)
	}
	fmt.Fprintln(s.Err)
	HelpHint(s.Err, p.Name)
	return ExitUsage
}

func (p *Program) names() []string {
	names := make([]string, len(p.Commands))
	for i, c := range p.Commands {
		names[i] = c.Name
	}
	return names
}

// Usage is the program's help: the default command's usage, or the
// synopsis; then the commands.
func (p *Program) Usage(w io.Writer) {
	if p.Default != nil {
		fs := p.flags(p.Default, w)
		p.Default.Setup(fs)
		fs.Usage()
		return
	}
	fmt.Fprintf(w, "usage: %s COMMAND [ARGS]\n", p.Name)
	p.listCommands(w)
}

func (p *Program) listCommands(w io.Writer) {
	if len(p.Commands) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncommands:")
	width := 0
	for _, c := range p.Commands {
		width = max(width, len(c.Name))
	}
	for _, c := range p.Commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun '%s COMMAND -h' for a command's flags.\n", p.Name)
}

// fullName is the command as the user runs it, and how messages name it.
func (p *Program) fullName(c *Command) string {
	if c.Name == "" {
		return p.Name
	}
	return p.Name + " " + c.Name
}

// flags is a command's flag set: errors and usage to w (Parse sends the
// usage asked for to stdout), the usage headed by the synopsis, the default
// command's followed by the program's commands.
func (p *Program) flags(c *Command, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(p.fullName(c), flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		w := fs.Output()
		synopsis := c.Synopsis
		if synopsis == "" {
			synopsis = strings.TrimSpace(c.Name + " [flags]")
		}
		fmt.Fprintf(w, "usage: %s %s\n", p.Name, synopsis)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(w, "\nflags:")
			fs.PrintDefaults()
		}
		if c == p.Default {
			p.listCommands(w)
		}
	}
	return fs
}

// run parses c's flags and arguments and runs it.
func (p *Program) run(c *Command, args []string, s Streams) int {
	name := p.fullName(c)
	fs := p.flags(c, s.Err)
	run := c.Setup(fs)
	pos := args
	if !c.Raw {
		var err error
		pos, err = ParseAll(fs, args, s.Out, name)
		if err != nil {
			// Said already: the help asked for, or the flag's mistake.
			if c.NotRun != nil {
				c.NotRun(err)
			}
			if errors.Is(err, flag.ErrHelp) {
				return ExitOK
			}
			return ExitUsage
		}
		word := c.Name
		if word == "" {
			word = p.Name[strings.LastIndex(p.Name, " ")+1:]
		}
		if err := c.Args.check(word, pos); err != nil {
			if c.NotRun != nil {
				c.NotRun(err)
			}
			return p.exitFor(name, s.Err, err)
		}
	}
	return p.exitFor(name, s.Err, run(pos, s))
}

// exitFor says err on stderr as the command's and maps it to an exit code.
func (p *Program) exitFor(name string, stderr io.Writer, err error) int {
	var ue UsageError
	var exit Exit
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &exit):
		return int(exit)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\n", name, ue.Msg)
		HelpHint(stderr, name)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	if p.FailureCode != nil {
		if code := p.FailureCode(err); code != 0 {
			return code
		}
	}
	return ExitFailed
}
