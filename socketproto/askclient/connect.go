package askclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"askuser/internal/statefile"
	"askuser/socketproto"
	"askuser/socketproto/peertrust"
)

// ErrUnreachable means no daemon answered on the socket (and, when autostart
// was allowed, none could be started). Errors returned by Connect wrap it and
// the cause.
var ErrUnreachable = errors.New("askuserd could not be reached")

// Options says where the daemon is and whether to start it.
type Options struct {
	SocketPath      string // resolved path
	MaxMessageBytes int    // <= 0: the default limit
	Autostart       bool   // start `askuserd serve` when nothing answers
	DaemonBinary    string // "" = askuserd next to os.Executable(), else on PATH
	ConfigPath      string // passed to askuserd as --config when set
	// DaemonLog receives an autostarted daemon's output (config's
	// DaemonLogPath); "" = /dev/null.
	DaemonLog string
	// Say tells the person behind a waiting client what it is waiting for
	// (askuser-client writes it on stderr); nil says nothing.
	Say func(string)
}

// How long Connect keeps trying after starting a daemon. 10 s rather than
// less: a daemon replaying a long journal, or a race-instrumented binary on a
// busy machine, can take seconds to listen, and the caller is about to wait
// for a person anyway, so giving up early only turns a slow start into a
// failure.
var autostartWait = 10 * time.Second

// maxStarts bounds how often one Connect starts askuserd. More than one: a
// daemon started while the previous one is still shutting down (its lock
// not yet released) steps aside, and the next start succeeds. Not
// unbounded: a daemon that keeps exiting (a broken config) is reported, not
// respawned in a loop.
const maxStarts = 4

// Connect dials the daemon. When nothing answers and o.Autostart is set, it
// starts `askuserd serve` detached from this process (its own session, stdio
// to /dev/null or o.DaemonLog) and retries for up to autostartWait. The pane
// and askuser-client both start the daemon through it.
func Connect(ctx context.Context, o Options) (*socketproto.Conn, error) {
	if o.SocketPath == "" {
		return nil, fmt.Errorf("%w: no socket path", ErrUnreachable)
	}
	c, err := socketproto.Dial(o.SocketPath, o.MaxMessageBytes)
	if err == nil {
		return c, nil
	}
	if peertrust.IsRefusal(err) {
		// Someone else's socket or directory: starting a daemon would not
		// make it ours, and trying another socket could reach theirs.
		return nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	if !o.Autostart {
		return nil, fmt.Errorf("%w on %s: %w%s", ErrUnreachable, o.SocketPath, err, whatToDo(err))
	}
	return autostart(ctx, o, err)
}

// autostart starts a daemon because dialing said dialErr, and dials until
// one answers, starting another when one steps aside, up to maxStarts.
func autostart(ctx context.Context, o Options, dialErr error) (*socketproto.Conn, error) {
	started, serr := startDaemon(o)
	if serr != nil {
		return nil, fmt.Errorf("%w on %s (%v), and starting it failed: %w", ErrUnreachable, o.SocketPath, dialErr, serr)
	}
	a := &autostarter{o: o, started: started, starts: 1, deadline: time.Now().Add(autostartWait), pause: 5 * time.Millisecond}
	for {
		c, err := socketproto.Dial(o.SocketPath, o.MaxMessageBytes)
		if err == nil {
			if a.started == nil {
				return c, nil
			}
			return vouch(ctx, o, c, a.started, a.deadline)
		}
		if peertrust.IsRefusal(err) {
			// Someone else's socket appeared while ours was starting.
			return nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
		}
		if time.Now().After(a.deadline) {
			return nil, a.timedOut(err)
		}
		if c, err := a.await(ctx); c != nil || err != nil {
			return c, err
		}
	}
}

// autostarter is one autostart under way.
type autostarter struct {
	o        Options
	started  <-chan startOutcome // the latest start's, nil once it said
	starts   int
	last     *startOutcome // the latest start that said how it went
	deadline time.Time
	pause    time.Duration // between dials, doubling up to 100 ms
}

// await waits a pause between dials, or less when the latest start says
// how it went. It returns a connection or an error to end the autostart
// with, or neither to dial again.
func (a *autostarter) await(ctx context.Context) (*socketproto.Conn, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case out := <-a.started:
		return a.ended(out)
	case <-time.After(a.pause):
		a.slowDown()
		return nil, nil
	}
}

// ended acts on how the latest start went, like await.
func (a *autostarter) ended(out startOutcome) (*socketproto.Conn, error) {
	a.started, a.last = nil, &out
	if out.status.Ready {
		return nil, nil // listening: dial at once
	}
	// A daemon that refused for a reason of its own (the state dir
	// held by a daemon on another socket, a broken config) will
	// refuse again: say why now rather than after the deadline.
	// Losing to a daemon on this very socket is a start-up race:
	// that one is about to answer.
	if out.status.Code == socketproto.StartRefused {
		return nil, fmt.Errorf("%w on %s: %w", ErrUnreachable, a.o.SocketPath, &StartRefusal{Reason: out.status.Message})
	}
	// It lost to a daemon that was still shutting down (its lock
	// not yet released) or to one starting beside it: if nothing
	// answers, start another rather than wait out the deadline.
	time.Sleep(a.pause)
	c, err := socketproto.Dial(a.o.SocketPath, a.o.MaxMessageBytes)
	if err == nil {
		return c, nil
	}
	// Past maxStarts keep polling: the winner of a start-up race
	// may still be on its way to listening.
	if a.starts < maxStarts {
		started, serr := startDaemon(a.o)
		if serr != nil {
			return nil, fmt.Errorf("%w on %s (%v), and starting it failed: %w", ErrUnreachable, a.o.SocketPath, err, serr)
		}
		a.started = started
		a.starts++
	}
	a.slowDown()
	return nil, nil
}

func (a *autostarter) slowDown() {
	if a.pause < 100*time.Millisecond {
		a.pause *= 2
	}
}

// timedOut is the error for an autostart whose deadline passed with the
// socket still saying err.
func (a *autostarter) timedOut(err error) error {
	cause := fmt.Errorf("%v; the started askuserd did not answer within %v%s", err, autostartWait, logHint(a.o))
	// The last start that ended says more than the deadline does, even
	// when a later one is still on its way.
	if a.last != nil && !a.last.status.Ready {
		cause = fmt.Errorf("%v; the started askuserd exited: %v%s", err, a.last.exit, logHint(a.o))
		if a.last.status.Message != "" {
			cause = &StartRefusal{Reason: a.last.status.Message}
		}
	}
	return fmt.Errorf("%w on %s: %w", ErrUnreachable, a.o.SocketPath, cause)
}

// vouch hands out c, a connection that reached the socket, only once the
// daemon started for it has said whether it runs (or the autostart deadline
// has passed). A daemon listens before it is sure to run: it takes the state
// dir's lock and replays its journal after. One that then refuses closes c
// unread and removes its socket, which a client waiting on c would take for
// a deliberate stop and wait out for ever. Waiting here costs nothing: a
// daemon serves no connection before it is ready.
func vouch(ctx context.Context, o Options, c *socketproto.Conn, started <-chan startOutcome, deadline time.Time) (*socketproto.Conn, error) {
	select {
	case <-ctx.Done():
		c.Close()
		return nil, ctx.Err()
	case out := <-started:
		if !out.status.Ready && out.status.Code == socketproto.StartRefused {
			c.Close()
			return nil, fmt.Errorf("%w on %s: %w", ErrUnreachable, o.SocketPath, &StartRefusal{Reason: out.status.Message})
		}
		// Ready; or it lost the socket's lock to the daemon c reached.
		return c, nil
	case <-time.After(time.Until(deadline)):
		// Still starting (a long journal to replay): c is served once it
		// is ready, and the caller's own deadlines bound the rest.
		return c, nil
	}
}

// StartRefusal is an askuserd started to answer that said why it would
// not run (a state dir others may write, a config that does not parse):
// starting it again would not help, the reason's fix would.
type StartRefusal struct{ Reason string }

func (e *StartRefusal) Error() string {
	return "the askuserd started for it refused to run: " + e.Reason
}

// whatToDo is the advice for a socket nothing answers on, by what dialing
// it said.
func whatToDo(err error) string {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return "; no askuserd is running there: start one with 'askuserd' (the pane) or 'askuserd serve'"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "; the askuserd that made the socket is gone (it died): start it again with 'askuserd' or 'askuserd serve'"
	}
	return ""
}

func logHint(o Options) string {
	if o.DaemonLog == "" {
		return ""
	}
	return " (see " + o.DaemonLog + ")"
}

// daemonBinary finds askuserd, unless the options name it.
func daemonBinary(o Options) (string, error) {
	if o.DaemonBinary != "" {
		return o.DaemonBinary, nil
	}
	return FindProgram("askuserd")
}

// FindProgram finds one of askuser's programs (askuserd, askuser-mcp): the
// one installed beside this executable wins over PATH, so that programs
// from the same build go together.
func FindProgram(name string) (string, error) {
	dir := ""
	if self, err := os.Executable(); err == nil {
		dir = filepath.Dir(self)
	}
	return FindProgramIn(dir, name)
}

// FindProgramIn finds the program name in dir, else on PATH. dir "" is
// "beside this program" when it could not be told.
func FindProgramIn(dir, name string) (string, error) {
	where := "beside this program"
	if dir != "" {
		where = "in " + dir
		beside := filepath.Join(dir, name)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is neither %s nor on PATH", name, where)
	}
	return p, nil
}

// startOutcome is what became of a daemon started by startDaemon: the
// status it wrote on its start-status pipe (zero if it wrote none), and,
// unless it is ready and running, how it exited.
type startOutcome struct {
	status socketproto.StartStatus
	exit   error
}

// startDaemon starts a daemon for Connect: launchDaemon, or in a test a
// daemon of its own whose every step the test orders.
var startDaemon = launchDaemon

// launchDaemon launches `askuserd serve` in its own session so that it
// outlives this process and no terminal signal (Ctrl-C in the agent's shell)
// reaches it. The returned channel yields once: when the daemon says it is
// ready, or says why it will not run (docs/contract.md §2, its start-status
// pipe) and exits, or exits without a word. A goroutine reaps it so that a
// long-lived client (the MCP server, a pane) does not collect zombies.
// Concurrent clients may each start one: all but one find the daemon's
// lock and exit, and every client then dials the survivor.
func launchDaemon(o Options) (<-chan startOutcome, error) {
	binPath, err := daemonBinary(o)
	if err != nil {
		return nil, err
	}
	// The socket is passed as --socket, the first of the daemon's path
	// rules: it then listens exactly where this client dials, whatever
	// config.toml or an inherited ASKUSER_SOCKET says, and `ps` shows where.
	args := []string{"serve", "--socket", o.SocketPath}
	if o.ConfigPath != "" {
		// Absolute, because the daemon does not run in this directory.
		cfgPath, err := filepath.Abs(o.ConfigPath)
		if err != nil {
			return nil, err
		}
		args = append(args, "--config", cfgPath)
	}
	cmd := exec.Command(binPath, args...)
	// The daemon runs in / rather than in the caller's directory: it lives
	// on after its starter, and a daemon sitting in a project directory
	// would keep that directory busy (an unmount fails, a deleted checkout
	// stays its working directory) for as long as it runs.
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	cmd.Stdin = devnull
	// Without its log the daemon still runs; only its start-up error would
	// go unseen, and then the caller reports the exit status instead.
	out := devnull
	if o.DaemonLog != "" {
		if err := os.MkdirAll(filepath.Dir(o.DaemonLog), 0o700); err == nil {
			// Through statefile: a FIFO at the log's path would block
			// the starter (a pane, askuserd web, an agent's ask) for good.
			if f, _, err := statefile.Open(o.DaemonLog, unix.O_CREAT|unix.O_WRONLY|unix.O_APPEND, 0o600); err == nil {
				defer f.Close()
				out = f
			}
		}
	}
	cmd.Stdout, cmd.Stderr = out, out
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{statusW} // descriptor 3 in the daemon
	cmd.Env = append(os.Environ(), socketproto.StartFDEnv+"=3")
	err = cmd.Start()
	statusW.Close() // the daemon's copy is the one that matters
	if err != nil {
		statusR.Close()
		return nil, err
	}
	started := make(chan startOutcome, 1)
	go func() {
		defer statusR.Close()
		var out startOutcome
		line, _ := bufio.NewReader(io.LimitReader(statusR, 64<<10)).ReadBytes('\n')
		_ = json.Unmarshal(line, &out.status) // nothing readable: no status

		if out.status.Ready {
			started <- out
			_ = cmd.Wait()
			return
		}
		out.exit = cmd.Wait()
		started <- out
	}()
	return started, nil
}
