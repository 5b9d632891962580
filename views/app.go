package views

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"askuser/socketproto"
)

// App is a pane running in a tview application. Daemon events reach it
// through Deliver; one adapter goroutine carries them into the UI with
// QueueUpdateDraw. Quitting goes through that same goroutine (it calls
// app.Stop), so it is never left blocked in QueueUpdateDraw on a stopped app.
type App struct {
	TV   *tview.Application
	Pane *Pane

	events   chan socketproto.Message
	wake     chan time.Duration // the pane's next redraw by itself (0: none)
	quit     chan struct{}
	quitOnce sync.Once
	stopped  chan struct{} // closed when the adapter has returned

	sender       Sender
	lastActivity time.Time // UI goroutine only
}

// activityEvery spaces the activity messages of a user who keeps typing:
// the daemon only needs to know that someone is here (docs/contract.md §4).
const activityEvery = 5 * time.Second

// NewApp builds the app. screen is nil for the real terminal, or a
// simulation screen in tests.
func NewApp(s Sender, opt Options, screen tcell.Screen) *App {
	a := &App{
		TV:      tview.NewApplication(),
		events:  make(chan socketproto.Message, 1024),
		wake:    make(chan time.Duration, 1),
		quit:    make(chan struct{}),
		stopped: make(chan struct{}),
		sender:  s,
	}
	a.Pane = NewPane(s, opt)
	a.Pane.app = a.TV
	a.Pane.onQuit = a.Quit
	a.Pane.onWake = a.wakeIn
	if screen != nil {
		a.TV.SetScreen(screen)
	}
	a.TV.SetRoot(a.Pane, true).EnablePaste(true)
	a.TV.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		a.active()
		if ev.Key() == tcell.KeyCtrlC {
			a.Pane.flushTyping() // text typed and not accepted is kept
			a.Quit()             // through the adapter, not tview's own Stop
			return nil
		}
		return ev
	})
	return a
}

// active tells the daemon that the user is at this pane, so that nothing
// is pushed to their phone meanwhile. A lost message only makes
// notifications more eager.
func (a *App) active() {
	if now := time.Now(); now.Sub(a.lastActivity) >= activityEvery {
		a.lastActivity = now
		_ = a.sender.Send(socketproto.Activity{})
	}
}

// Deliver hands a daemon message to the pane. It may be called from any
// goroutine; it does not block once the pane has quit.
func (a *App) Deliver(msg socketproto.Message) {
	select {
	case a.events <- msg:
	case <-a.quit:
	}
}

// Quit stops the pane (not the daemon). Safe to call more than once, from
// any goroutine, including the UI's own.
func (a *App) Quit() { a.quitOnce.Do(func() { close(a.quit) }) }

// flushThenQuit quits after sending what was typed and not yet sent. It
// runs on the signal's goroutine, not the UI's: with the terminal gone the
// UI may be stopping already (Link.Send may be called from any goroutine).
func (a *App) flushThenQuit() {
	a.Pane.sendHeldTyping()
	a.Quit()
}

// Done is closed once the pane has quit.
func (a *App) Done() <-chan struct{} { return a.quit }

// Run shows the pane until it quits.
//
// The adapter starts at the first draw, once the screen is up. When the
// terminal cannot be opened (no tty), TV.Run returns at once with the error,
// and an adapter already running would call Stop, which panics on a screen
// never initialised, or wait forever in QueueUpdateDraw for a loop that never
// ran.
func (a *App) Run() error {
	var once sync.Once
	started := make(chan struct{})
	after := a.TV.GetAfterDrawFunc() // one set by the caller still runs
	a.TV.SetAfterDrawFunc(func(screen tcell.Screen) {
		once.Do(func() {
			close(started)
			go a.adapt()
		})
		if after != nil {
			after(screen)
		}
	})
	err := a.TV.Run()
	// The UI ended by itself (its terminal went away): what was typed and
	// held back goes now, while the link to the daemon is still up.
	a.Pane.sendHeldTyping()
	a.Quit()
	select {
	case <-started:
		<-a.stopped
	default:
		if err != nil {
			return fmt.Errorf("the pane needs a terminal: %w", err)
		}
	}
	return err
}

// wakeIn is called by the pane on the UI goroutine after each draw: the
// latest wish replaces any older one.
func (a *App) wakeIn(d time.Duration) {
	select {
	case <-a.wake:
	default:
	}
	a.wake <- d // cannot block: the UI goroutine is the only sender
}

// adapt is the one goroutine that feeds the UI. Besides daemon events, it
// redraws when the pane asked to be woken (the guard ends, a notice
// expires, the "3m ago" label ticks over), with one timer; nothing redraws
// unless something happens.
func (a *App) adapt() {
	defer close(a.stopped)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-a.quit:
			a.TV.Stop()
			return
		case msg := <-a.events:
			a.TV.QueueUpdateDraw(func() { a.Pane.HandleEvent(msg) })
		case d := <-a.wake:
			timer.Stop()
			if d > 0 {
				timer.Reset(d)
			}
		case <-timer.C:
			a.TV.QueueUpdateDraw(a.Pane.tick)
		}
	}
}

// Run opens the pane in this terminal, connected to the daemon's socket
// (reconnecting whenever the connection drops), until the user quits.
func Run(opt Options, maxMessageBytes int) error {
	link := &Link{Socket: opt.Socket, MaxBytes: maxMessageBytes, Restart: opt.RestartDaemon, RestartDelay: 5 * time.Second, Log: opt.Log}
	a := NewApp(link, opt, nil)
	go link.Run(a.Done(), a.Deliver)
	// A closed terminal (SIGHUP) or a kill quits like q, so that what was
	// typed is kept as a draft (typing.go).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ran := make(chan struct{})
	defer close(ran)
	go func() {
		select {
		case s := <-sigs:
			a.flushThenQuit()
			// With its terminal gone the UI may not finish stopping: the
			// pane then ends as the signal would have ended it.
			select {
			case <-ran:
			case <-time.After(2 * time.Second):
				signal.Reset(s)
				_ = syscall.Kill(os.Getpid(), s.(syscall.Signal))
			}
		case <-ran:
		}
	}()
	return a.Run()
}
