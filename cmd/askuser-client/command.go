package main

import (
	"errors"
	"flag"
	"io"

	"askuser/cmd/internal/clientflags"
	runner "askuser/cmd/internal/command"
	"askuser/internal/config"
	"askuser/internal/didyoumean"
	"askuser/socketproto/askclient"
)

// command is one subcommand. Its setup registers its own flags and returns
// what runs once they are parsed. What is askuser-client's own is done here
// once for every command: the connection flags, reading config.toml, the
// daemon's client. The shared runner (cmd/internal/command) does the rest:
// dispatch, parsing, the number of arguments, and turning the error
// returned into a message and an exit code (docs/contract.md §7).
type command struct {
	name    string
	summary string // one line, for askuser-client --help
	// synopsis heads the command's usage: "status [--json] [flags]…".
	synopsis string
	daemon   daemonUse
	args     argCount
	// raw: the arguments are the command's own, not parsed here (mcp hands
	// them to askuser-mcp).
	raw   bool
	setup func(fs *flag.FlagSet) func(x *invocation) error
}

// daemonUse is what a command needs of askuser's configuration and daemon,
// and so which of the shared flags it takes.
type daemonUse int

const (
	noDaemon    daemonUse = iota // neither (schema, integrate, mcp)
	configOnly                   // config.toml, not the daemon (history): --config
	reachDaemon                  // a running daemon, never started here: --socket, --config
	startDaemon                  // a daemon, started when none runs: also --no-autostart
)

// argCount bounds the positional arguments; max < 0 is no bound. what names
// them in the refusal ("a request ID").
type argCount struct {
	min, max int
	what     string
}

var (
	noArgs  = argCount{0, 0, ""}
	oneID   = argCount{1, 1, "request ID"}
	anyArgs = argCount{0, -1, ""}
)

// errNoClient: a command that does not talk to the daemon asked for it.
var errNoClient = errors.New("this command does not talk to askuserd")

// invocation is one run of a command: its arguments and streams, and what
// the runner resolved for it.
type invocation struct {
	name           string
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	conn           connFlags
	use            daemonUse
	resolved       *resolved
}

// resolve reads config.toml (its warnings said on stderr) and makes the
// daemon's client options, once.
func (x *invocation) resolve() (resolved, error) {
	if x.resolved != nil {
		return *x.resolved, nil
	}
	var r resolved
	switch x.use {
	case noDaemon:
		return r, errNoClient
	case configOnly:
		r.Config = clientflags.LoadWhere(x.conn.Config, x.stderr, "askuser-client "+x.name)
	default:
		var err error
		if r, err = x.conn.Resolve(x.use == startDaemon, x.stderr, "askuser-client "+x.name); err != nil {
			return r, err
		}
	}
	x.resolved = &r
	return r, nil
}

// config is config.toml with its defaults.
func (x *invocation) config() (config.Config, error) {
	r, err := x.resolve()
	return r.Config, err
}

// client is the daemon's client. Resolved when first asked for, so that a
// usage mistake is said before config.toml is read.
func (x *invocation) client() (*askclient.Client, error) {
	r, err := x.resolve()
	if err != nil {
		return nil, err
	}
	return askclient.New(r.Client), nil
}

// usagef is a mistake in how the command was called: said in one line
// with where help is, exit 2.
func usagef(format string, args ...any) error { return runner.Usagef(format, args...) }

// wrappedCommand parses the flags of a command that runs another program
// (acp-proxy, mcp-proxy: raw, their flags end at "--" or the program), and
// returns that program's argv and the daemon's options. want says what is
// missing when no program is given. A non-nil error is the command's exit.
func (x *invocation) wrappedCommand(fs *flag.FlagSet, want string) ([]string, resolved, error) {
	if err := runner.Parse(fs, x.args, x.stdout, "askuser-client "+x.name); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, resolved{}, exitStatus(exitOK)
		}
		return nil, resolved{}, exitStatus(exitUsage)
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return nil, resolved{}, usagef("%s", want)
	}
	res, err := x.resolve()
	if err != nil {
		return nil, resolved{}, err
	}
	return argv, res, nil
}

// unknownWord is the usage error of a word a command does not know (a
// subcommand, an agent, a tool): what was typed, the known word it most
// likely meant, and what the command takes.
func unknownWord(what, typed string, known []string, takes string) error {
	if guess := didyoumean.Nearest(typed, known); guess != "" {
		return usagef("unknown %s %q; did you mean %q?", what, typed, guess)
	}
	return usagef("unknown %s %q; %s", what, typed, takes)
}

// exitStatus ends a command that has said all it had to say (a result on
// stdout, a refusal it explained) with its own exit code.
type exitStatus = runner.Exit

// shared is the command as the shared runner runs it: the connection flags
// its daemonUse asks for beside its own, and an invocation to run it with.
func (c *command) shared() *runner.Command {
	return &runner.Command{
		Name:     c.name,
		Summary:  c.summary,
		Synopsis: c.synopsis,
		Args:     runner.Args{Min: c.args.min, Max: c.args.max, What: c.args.what},
		Raw:      c.raw,
		Setup: func(fs *flag.FlagSet) runner.Run {
			x := &invocation{name: c.name, use: c.daemon}
			switch c.daemon {
			case configOnly:
				fs.StringVar(&x.conn.Config, "config", "", "config.toml to read (default: $XDG_CONFIG_HOME/askuser/config.toml)")
			case reachDaemon, startDaemon:
				x.conn.Register(fs, c.daemon == startDaemon)
			}
			exec := c.setup(fs)
			return func(args []string, s runner.Streams) error {
				x.args, x.stdin, x.stdout, x.stderr = args, s.In, s.Out, s.Err
				return exec(x)
			}
		},
	}
}

// run runs the command with args, as `askuser-client NAME args…` would,
// and returns its exit code.
func (c *command) run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch(append([]string{c.name}, args...), stdin, stdout, stderr)
}
