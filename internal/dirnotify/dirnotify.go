// Package dirnotify watches directories for what a reader of the files in
// them must know: an entry made, moved in or out, removed or changed in
// mode, a file closed after writing, the directory itself removed or moved.
//
// It is fsnotify with one difference, on Linux: a file is reported once its
// writer closes it, not at every write(2). The daemon's state dir holds the
// pending file, which it watches, beside the journal and history.jsonl,
// which it appends to on every change; with a Write per write(2) each change
// woke two goroutines to be told of a file nobody watches, beside the
// agent that waits. A save is also whole only once closed. fsnotify has the
// close-after-write event but does not yet let callers choose it over Write
// (fsnotify/fsnotify#764: withOps is unexported until every platform has
// it), so on Linux this package asks inotify itself; elsewhere it is
// fsnotify unchanged.
//
// Events are fsnotify's: a file closed after writing is a Write, an entry
// moved in a Create, moved out a Rename; the directory's own removal or move
// names the directory.
package dirnotify

import "github.com/fsnotify/fsnotify"

// Event and Op are fsnotify's, so that code reads the same on every
// platform.
type (
	Event = fsnotify.Event
	Op    = fsnotify.Op
)

// ErrEventOverflow is sent on Errors when the kernel dropped events: what
// they would have said must be looked at again.
var ErrEventOverflow = fsnotify.ErrEventOverflow

// The operations, as fsnotify names them.
const (
	Create = fsnotify.Create
	Write  = fsnotify.Write
	Remove = fsnotify.Remove
	Rename = fsnotify.Rename
	Chmod  = fsnotify.Chmod
)
