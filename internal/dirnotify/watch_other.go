//go:build !linux

package dirnotify

import "github.com/fsnotify/fsnotify"

// Watcher watches directories; Events and Errors are read until closed.
type Watcher struct {
	Events chan Event
	Errors chan error
	w      *fsnotify.Watcher
}

// New starts a watcher watching nothing yet.
func New() (*Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &Watcher{Events: w.Events, Errors: w.Errors, w: w}, nil
}

// Add watches dir.
func (w *Watcher) Add(dir string) error { return w.w.Add(dir) }

// Remove stops watching dir.
func (w *Watcher) Remove(dir string) error { return w.w.Remove(dir) }

// Close stops every watch and closes Events and Errors.
func (w *Watcher) Close() error { return w.w.Close() }
