package pendingfile

import "fmt"

// fileStatus is the Syncer's condition as far as the file at its path goes:
// whether a save is still being written, whether a problem with the file
// was reported and not yet cleared, and whether the path is unusable. It is
// one value rather than a flag for each, so that the mixes that cannot
// happen (a path left alone while a save settles in it, a block nobody was
// told of) cannot be written down either.
//
// A status "reported" owes the user a cleared form of its pending_file_error
// (docs/contract.md §4): the Syncer sends it whenever it moves from a reported status to
// one that is not (become).
type fileStatus int

const (
	// statusFine: nothing reported, nothing waited for; rewrites go ahead.
	statusFine fileStatus = iota
	// statusSettling: a file that is empty or does not parse is given
	// time to finish being written before it is believed; rewrites wait.
	statusSettling
	// statusReported: a problem with a save was reported (it did not
	// parse, or was too large) and no save has parsed since. Rewrites go
	// ahead: the save is kept as .rejected.
	statusReported
	// statusReportedSettling: statusReported, and a newer save is
	// settling; rewrites wait.
	statusReportedSettling
	// statusBlocked: the path holds something the daemon cannot use (not
	// a regular file, or one it cannot read): reported, left alone, and
	// never rewritten until it is usable again.
	statusBlocked
)

var statusNames = [...]string{
	statusFine:             "fine",
	statusSettling:         "settling",
	statusReported:         "reported",
	statusReportedSettling: "reported, settling",
	statusBlocked:          "blocked",
}

func (st fileStatus) String() string {
	if st >= 0 && int(st) < len(statusNames) {
		return statusNames[st]
	}
	return fmt.Sprintf("fileStatus(%d)", int(st))
}

// settling: a save is given time to finish; rewrites wait for it.
func (st fileStatus) settling() bool {
	return st == statusSettling || st == statusReportedSettling
}

// reported: the user was told of a problem that is not over yet.
func (st fileStatus) reported() bool {
	return st == statusReported || st == statusReportedSettling || st == statusBlocked
}

// blocked: the path is left alone.
func (st fileStatus) blocked() bool { return st == statusBlocked }

// The transitions. Each is total, so a call the Syncer never makes in a
// status (a save settling on a blocked path) still keeps what the user
// was told.

// settle: a save that is empty or does not parse starts settling.
func (st fileStatus) settle() fileStatus {
	switch st {
	case statusFine, statusSettling:
		return statusSettling
	default: // a block ends only by unblock, which clears it
		return statusReportedSettling
	}
}

// settled: no save is settling any more (it was believed, or replaced by
// one that needs no settling, or is gone).
func (st fileStatus) settled() fileStatus {
	switch st {
	case statusSettling:
		return statusFine
	case statusReportedSettling:
		return statusReported
	default:
		return st
	}
}

// problem: a problem with a save was reported. A save settling meanwhile
// still settles; a block stays a block: the path is still unusable.
func (st fileStatus) problem() fileStatus {
	switch st {
	case statusFine:
		return statusReported
	case statusSettling:
		return statusReportedSettling
	default:
		return st
	}
}

// parsed: a save that parses is on disk, so a problem with an earlier one
// is over. A block is not: the path is what is wrong.
func (st fileStatus) parsed() fileStatus {
	switch st {
	case statusReported:
		return statusFine
	case statusReportedSettling:
		return statusSettling
	default:
		return st
	}
}

// block: the path is unusable. Whatever was settling there is gone.
func (st fileStatus) block() fileStatus { return statusBlocked }

// unblock: the path is usable again (a regular file that can be read, or
// nothing at all).
func (st fileStatus) unblock() fileStatus {
	if st == statusBlocked {
		return statusFine
	}
	return st
}
