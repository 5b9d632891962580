package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"askuser/cmd/internal/clientflags"
	"askuser/internal/config"
	"askuser/socketproto/askclient"
)

// command is one subcommand. Its setup registers its own flags and returns
// what runs once they are parsed; the runner does the rest once for every
// command: the connection flags, parsing, the number of arguments, reading
// config.toml, the daemon's client, and turning the error returned into a
// message and an exit code (docs/contract.md §7).
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
		cfg, err := config.Load(x.conn.Config)
		if err != nil {
			return r, err
		}
		clientflags.WarnAbout(cfg, x.stderr, "askuser-client "+x.name)
		r.Config = cfg
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

// usageError is a mistake in how the command was called: said in one line
// with where help is, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitStatus ends a command that has said all it had to say (a result on
// stdout, a refusal it explained) with its own exit code.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// run runs the command with args and returns its exit code.
func (c *command) run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags(c.name, c.synopsis, stderr)
	x := &invocation{name: c.name, stdin: stdin, stdout: stdout, stderr: stderr, use: c.daemon}
	switch c.daemon {
	case configOnly:
		fs.StringVar(&x.conn.Config, "config", "", "config.toml to read (default: $XDG_CONFIG_HOME/askuser/config.toml)")
	case reachDaemon, startDaemon:
		x.conn.Register(fs, c.daemon == startDaemon)
	}
	exec := c.setup(fs)
	if c.raw {
		x.args = args
	} else {
		pos, code := parseArgs(fs, args, stdout)
		if code != nil {
			return *code
		}
		if err := c.args.check(c.name, pos); err != nil {
			return c.exitFor(stderr, err)
		}
		x.args = pos
	}
	return c.exitFor(stderr, exec(x))
}

// check refuses a number of arguments the command does not take.
func (a argCount) check(name string, pos []string) error {
	n := len(pos)
	switch {
	case a.max == 0 && n > 0:
		return usagef("%s takes no arguments", name)
	case a.max == 1 && n > 1 && a.min == 0:
		return usagef("want at most one %s, got %d arguments", a.what, n)
	case a.min == 1 && a.max == 1 && n != 1:
		return usagef("want one %s, got %d arguments", a.what, n)
	case n < a.min:
		return usagef("want a %s", a.what)
	}
	return nil
}

// exitFor says err on stderr as the command's and maps it to an exit code:
// 2 for a usage mistake, the code an exitStatus carries, 4 for a daemon
// unreachable or a connection lost, 1 for the rest (refusals included).
func (c *command) exitFor(stderr io.Writer, err error) int {
	var ue usageError
	var es exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &es):
		return int(es)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "askuser-client %s: %s\n", c.name, ue.msg)
		clientflags.HelpHint(stderr, "askuser-client "+c.name)
		return exitUsage
	}
	return failure(stderr, c.name, err)
}
