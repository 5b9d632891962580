// Package clientflags holds the flags askuser-client and askuser-mcp share
// to say how to reach the daemon, and what they resolve to. The pane
// (askuserd) reaches its daemon with the same ClientOptions. Parsing and
// dispatch are cmd/internal/command's.
package clientflags

import (
	"flag"
	"fmt"
	"io"

	"askuser/internal/config"
	"askuser/socketproto/askclient"
)

// MCPViaClient is the name askuser-client runs askuser-mcp under for
// `askuser-client mcp` (its argv[0]), and by which askuser-mcp knows it was
// started so: its messages, and ps, then say what the user configured. The
// two programs must agree on it, hence one constant.
const MCPViaClient = "askuser-client mcp"

// Conn are the flags every command that talks to the daemon shares.
type Conn struct {
	Socket      string
	Config      string
	NoAutostart bool
}

// Register adds --socket and --config, and --no-autostart for the commands
// that may start the daemon.
func (c *Conn) Register(fs *flag.FlagSet, autostart bool) {
	fs.StringVar(&c.Socket, "socket", "", "the daemon's socket (default: $ASKUSER_SOCKET, config daemon.socket, then $XDG_RUNTIME_DIR/askuser/askuserd.sock)")
	fs.StringVar(&c.Config, "config", "", "config.toml to read (default: $XDG_CONFIG_HOME/askuser/config.toml)")
	if autostart {
		fs.BoolVar(&c.NoAutostart, "no-autostart", false, "fail (exit 4) instead of starting askuserd when none answers")
	}
}

// Resolved is what a command needs to reach the daemon.
type Resolved struct {
	Config config.Config
	Client askclient.Options
}

// Resolve reads config.toml and turns the flags into askclient options.
// autostart says whether this command may start the daemon at all. The
// config's warnings (unknown keys) go to stderr headed by command, e.g.
// "askuser-client ask: warning: config …": said, never a reason to stop.
func (c *Conn) Resolve(autostart bool, stderr io.Writer, command string) (Resolved, error) {
	cfg := LoadWhere(c.Config, stderr, command)
	opts := ClientOptions(cfg, c.Socket, c.Config, autostart && !c.NoAutostart)
	opts.Say = func(s string) { fmt.Fprintf(stderr, "%s: %s\n", command, s) }
	return Resolved{Config: cfg, Client: opts}, nil
}

// LoadWhere reads config.toml for a client, which needs only where the
// daemon is: a file that does not load is said once on w, as a warning,
// and the client goes on (config.LoadWhere); its other warnings too.
func LoadWhere(path string, w io.Writer, command string) config.Config {
	cfg, warning := config.LoadWhere(path)
	if warning != "" {
		fmt.Fprintf(w, "%s: warning: %s\n", command, warning)
	}
	WarnAbout(cfg, w, command)
	return cfg
}

// WarnAbout says the config's warnings on w, one line each.
func WarnAbout(cfg config.Config, w io.Writer, command string) {
	for _, warning := range cfg.Warnings {
		fmt.Fprintf(w, "%s: warning: %s\n", command, warning)
	}
}

// ClientOptions are the askclient options for a daemon configured by cfg:
// socketFlag is --socket ("" for the configured or default socket; a path
// already resolved by cfg.SocketPath is kept as it is), configPath is
// --config, handed to a daemon started here, and autostart says whether one
// may be started. DaemonBinary is left to the caller.
func ClientOptions(cfg config.Config, socketFlag, configPath string, autostart bool) askclient.Options {
	return askclient.Options{
		SocketPath:      cfg.SocketPath(socketFlag),
		MaxMessageBytes: cfg.Limits.MaxMessageBytes,
		Autostart:       autostart,
		ConfigPath:      configPath,
		DaemonLog:       cfg.DaemonLogPath(),
	}
}
