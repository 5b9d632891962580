package panecore

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"askuser/socketproto/peertrust"
)

// A lost connection is told as what happened and what to do about it, by
// cause, in words a user can act on; the dial error itself ("dial unix …:
// connect: no such file or directory") says the same to nobody but a
// programmer, and goes to the log (Link.Log). Every notice starts with
// notConnected, so that a face and its tests can tell it from any other.

// notConnected begins every notice of a lost connection.
const notConnected = "Not connected to askuserd"

// lostCause is why the pane is not connected.
type lostCause int

const (
	// causeOther: none of the below (a timeout, a refused subscribe).
	causeOther lostCause = iota
	// causeClosed: a connection that worked was closed; the pane dials
	// again and the next notice, if any, says why that failed.
	causeClosed
	// causeNoDaemon: nothing at the socket path, and this pane never
	// reached a daemon there.
	causeNoDaemon
	// causeStopped: nothing at the socket path any more where this pane was
	// connected: the daemon stopped cleanly (askuserd stop, a signal from
	// its service manager) and removed its socket.
	causeStopped
	// causeNotYours: peertrust refused the socket or its directory.
	causeNotYours
	// causeDied: the socket is left but nothing answers (a crash, kill
	// -9); the pane starts it again after a while, or cannot.
	causeDied
)

// lostCauseOf sorts a failed dial or a dropped session. connected says the
// session had connected before it failed; everConnected, that this pane has
// reached a daemon at the path since it started.
func lostCauseOf(err error, connected, everConnected bool) lostCause {
	switch {
	case connected:
		return causeClosed
	case peertrust.IsRefusal(err):
		return causeNotYours
	case errors.Is(err, fs.ErrNotExist) && everConnected:
		return causeStopped
	case errors.Is(err, fs.ErrNotExist):
		return causeNoDaemon
	case errors.Is(err, syscall.ECONNREFUSED):
		return causeDied
	}
	return causeOther
}

// startIt is what to do when no daemon runs: either way starts one, and
// the pane connects by itself once it answers.
const startIt = "with `askuserd serve`, or quit and run `askuserd`"

// kept is what the user may worry about most. A face shows a notice in a
// few lines, cutting the end: what happened and what to do come first, the
// socket's path last.
const kept = "Nothing you typed is lost."

// lostNotice is the notice for cause at socket. restarts says the pane
// starts a daemon that died by itself (Link.Restart is set).
func lostNotice(cause lostCause, socket string, err error, restarts bool) string {
	switch cause {
	case causeClosed:
		return fmt.Sprintf("%s: the connection closed; connecting again. %s", notConnected, kept)
	case causeNoDaemon:
		return fmt.Sprintf("%s: no daemon is running. Start one %s. %s (Socket: %s)", notConnected, startIt, kept, socket)
	case causeStopped:
		return fmt.Sprintf("%s: it was stopped (askuserd stop, or a signal). Start it again %s. %s (Socket: %s)", notConnected, startIt, kept, socket)
	case causeNotYours:
		// The refusal says what was found and its own fix.
		var r *peertrust.Refusal
		errors.As(err, &r)
		return fmt.Sprintf("%s: %s. %s", notConnected, r.Error(), kept)
	case causeDied:
		if restarts {
			return fmt.Sprintf("%s: it died; it is started again in a few seconds, unless its service manager does it first. %s (Socket: %s)", notConnected, kept, socket)
		}
		return fmt.Sprintf("%s: it died, leaving its socket behind. Start it again %s. %s (Socket: %s)", notConnected, startIt, kept, socket)
	}
	return fmt.Sprintf("%s: it did not answer as expected; trying again every second. %s (Socket: %s)", notConnected, kept, socket)
}

// restartingNotice is said while the pane starts a daemon that died.
func restartingNotice() string {
	return fmt.Sprintf("%s: it died; starting it again now. %s", notConnected, kept)
}

// restartFailedNotice is said when starting it again failed; the reason
// (the daemon's own words, raw errors among them) is in the log.
func restartFailedNotice() string {
	return fmt.Sprintf("%s: it died, and starting it again failed; run `askuserd serve` in a terminal to see why. Trying again every 10 seconds. %s", notConnected, kept)
}
