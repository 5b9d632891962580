// Package daemon is askuserd: the source of truth for every question. It owns
// the socket (safesocket.go), the queue and its state machine (queue.go,
// handlers.go, transitions.go), the state journal every change is written
// to before it happens (journal_glue.go) and the state dir it lives in
// (statedir.go; its StrictModes check in strictmodes.go), and the followers through which subscribers, the pending
// file and the notify hook mirror it (followers.go, extensions.go). What a
// burst of work leaves in memory goes back to the system once it is quiet
// (memreturn.go). It speaks only socketproto to its clients and knows
// nothing of the pane.
package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"askuser/internal/config"
	"askuser/socketproto"
	"askuser/socketproto/peertrust"
)

// Version is askuserd's version, reported by hello and status.
const Version = socketproto.Version

// Options configure Run.
type Options struct {
	Config          config.Config
	SocketPath      string // default Config.SocketPath("")
	PendingFilePath string // default Config.PendingFilePath()
	Logger          *slog.Logger
	// ConfigFile is config.toml to follow while the daemon runs
	// (configfile.go); "" follows none.
	ConfigFile string
	Version    string // default Version

	// Ready, if set, is called once the socket accepts connections.
	Ready func()
	// Memory budgets (budget.go); 0 means the default.
	ConnOutputBytes int           // unread output per connection
	OutputBytes     int           // unread output of all connections
	InputBytes      int           // unfinished input lines of all connections
	LineTimeout     time.Duration // the longest a line may take to arrive

	// budgets, if set, is handed the daemon's budgets at start (tests).
	budgets func(*outputBudget, *inputBudget)
	// now, if set, is the daemon's clock (tests): the times it reports,
	// the ids it makes and the expiry of kept results follow it.
	now func() time.Time
	// connEnded, if set, is called once a connection's end has been handed
	// to the queue (tests), so that what follows sees it gone.
	connEnded func()
}

// server is one running daemon.
type server struct {
	opts   Options
	log    *slog.Logger
	limits socketproto.Limits
	q      *queue
	wg     sync.WaitGroup // every goroutine the daemon starts
	uid    int
	nextID uint64
	// stateLock is the state dir's; the queue goroutine takes it again
	// when the dir was deleted or could not be written (statedir.go).
	stateLock *stateDirLock

	output *outputBudget
	input  *inputBudget

	// live holds every open connection so that shutdown can close them even
	// when the queue has already stopped. Touched only on connect, on
	// disconnect and at shutdown.
	mu      sync.Mutex
	live    map[*conn]struct{}
	closing bool
	// maxConns bounds len(live) below the descriptor limit (connlimit.go);
	// evictions counts the silent connections closed to stay within it.
	maxConns  int
	evictions int
}

// Run serves on the socket until ctx ends, then closes every connection,
// removes the socket, releases the lock and returns nil. It returns an error
// when it cannot start (another daemon, an unsafe directory).
func Run(ctx context.Context, opts Options) error {
	opts = opts.withDefaults()
	d := &server{opts: opts, log: opts.Logger, limits: opts.Config.Limits, uid: os.Getuid(), live: map[*conn]struct{}{}, maxConns: maxConnections()}
	d.output = newOutputBudget(orDefault(opts.OutputBytes, defaultOutputBytes))
	d.input = newInputBudget(orDefault(opts.InputBytes, defaultInputBytes))
	if opts.budgets != nil {
		opts.budgets(d.output, d.input)
	}

	if err := checkStateDirs(opts.Config.StateDir(), opts.PendingFilePath); err != nil {
		return err
	}
	ln, lock, err := listenSocket(opts.SocketPath)
	if err != nil {
		return err
	}
	defer lock.release()
	// Go removes the socket file when the listener closes; say it anyway, as
	// removal before releasing the lock is what makes restarts safe.
	ln.SetUnlinkOnClose(true)
	// A state dir that cannot be written does not stop the start (docs/contract.md
	// §10): what it holds is restored, and changes are refused until it
	// can be written (statedir.go).
	d.stateLock, err = openStateDirLock(opts.Config.StateDir(), opts.SocketPath)
	if err != nil {
		ln.Close()
		return err
	}
	defer d.stateLock.release()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.q = newQueue(opts, d.log)
	memory := newMemoryReturn()
	d.q.stepped = memory.stepped
	d.wg.Add(1)
	go func() { defer d.wg.Done(); memory.run(ctx) }()
	queueDone := make(chan struct{})
	go func() { d.q.run(ctx); close(queueDone) }()
	if err := d.startServices(ctx); err != nil {
		stopping := ctx.Err() != nil // a signal during start-up is a stop, not a failure
		cancel()
		ln.Close()
		d.wg.Wait()
		<-queueDone
		if stopping {
			return nil
		}
		return err
	}

	d.log.Info("askuserd listening", "socket", opts.SocketPath, "pendingFile", opts.PendingFilePath,
		"config", cmp.Or(opts.Config.Path, "(none, defaults)"), "version", opts.Version, "pid", os.Getpid())
	if opts.Ready != nil {
		opts.Ready()
	}

	d.followConfig(ctx)
	acceptDone := make(chan struct{})
	go func() { defer close(acceptDone); d.accept(ln) }()

	<-ctx.Done()
	d.log.Info("askuserd stopping")
	ln.Close()
	<-acceptDone
	<-queueDone
	d.mu.Lock()
	d.closing = true
	d.input.shutdown()
	for c := range d.live {
		c.out.shut()
	}
	d.mu.Unlock()
	d.wg.Wait()
	if err := os.Remove(opts.SocketPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		d.log.Warn("removing the socket", "err", err)
	}
	return nil
}

// withDefaults fills in what opts leaves unset.
func (opts Options) withDefaults() Options {
	if opts.SocketPath == "" {
		opts.SocketPath = opts.Config.SocketPath("")
	}
	if opts.PendingFilePath == "" {
		opts.PendingFilePath = opts.Config.PendingFilePath()
	}
	if opts.Version == "" {
		opts.Version = Version
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Config.Limits == (socketproto.Limits{}) {
		opts.Config.Limits = socketproto.DefaultLimits()
	}
	if opts.LineTimeout <= 0 {
		opts.LineTimeout = defaultLineTimeout
	}
	return opts
}

// startServices starts the journal, then the extensions: the journal
// restores the queue before anyone follows it.
func (d *server) startServices(ctx context.Context) error {
	for _, start := range []func(context.Context) error{d.startJournal, d.startExtensions} {
		if err := start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// accept takes connections until the listener closes.
func (d *server) accept(ln *net.UnixListener) {
	var delay time.Duration
	for {
		nc, err := ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: back off, don't spin.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			d.log.Warn("accept", "err", err, "retry", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if uid, err := peertrust.PeerUID(nc); err != nil || uid != d.uid {
			// Off the accept loop: a refused peer that does not read must
			// not delay anyone else's connection.
			d.wg.Add(1)
			go d.refuse(nc, uid, err)
			continue
		}
		d.nextID++
		c := &conn{id: d.nextID, nc: nc, opened: time.Now(), out: newOutbox(nc, d.opts.ConnOutputBytes, d.output, &d.wg)}
		d.mu.Lock()
		if d.closing {
			d.mu.Unlock()
			nc.Close()
			return
		}
		if !d.makeRoomLocked() {
			d.wg.Add(1)
			d.mu.Unlock()
			go d.refuseFull(nc)
			continue
		}
		d.live[c] = struct{}{}
		d.wg.Add(1)
		d.mu.Unlock()
		go d.serveConn(c)
	}
}

// refuse turns away a connection from another user (SO_PEERCRED).
func (d *server) refuse(nc *net.UnixConn, uid int, err error) {
	defer d.wg.Done()
	msg := fmt.Sprintf("askuserd serves only uid %d; this connection is from uid %d", d.uid, uid)
	if err != nil {
		msg = "askuserd could not check who is connecting: " + err.Error()
	}
	d.log.Warn("refused a connection", "reason", msg)
	line, _ := socketproto.Encode(&socketproto.Error{Code: socketproto.CodeInvalidRequest, Message: msg})
	_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = nc.Write(line)
	_ = nc.Close()
}

// orDefault is v, or def when v is not set.
func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
