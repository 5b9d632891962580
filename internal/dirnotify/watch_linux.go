package dirnotify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// mask is what a watched directory reports: no IN_MODIFY, so a file that
// is written to and kept open (a journal) reports nothing.
const mask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_CLOSE_WRITE |
	unix.IN_MOVED_FROM | unix.IN_DELETE | unix.IN_ATTRIB |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// Watcher watches directories; Events and Errors are read until closed.
type Watcher struct {
	Events chan Event
	Errors chan error

	file *os.File // the inotify descriptor, read through the netpoller
	done chan struct{}
	read sync.WaitGroup // the reading goroutine

	mu     sync.Mutex
	dirs   map[int]string // watch descriptor → directory
	wds    map[string]int // directory → watch descriptor
	closed bool
}

// New starts a watcher watching nothing yet.
func New() (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	w := &Watcher{
		Events: make(chan Event),
		Errors: make(chan error),
		// Non-blocking, so that reads wait in the netpoller and Close ends
		// a read under way.
		file: os.NewFile(uintptr(fd), "inotify"),
		done: make(chan struct{}),
		dirs: map[int]string{},
		wds:  map[string]int{},
	}
	w.read.Add(1)
	go w.readEvents()
	return w, nil
}

// Add watches dir (again, if it was).
func (w *Watcher) Add(dir string) error {
	dir = filepath.Clean(dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fsnotify.ErrClosed
	}
	var wd int
	err := w.control(func(fd int) error {
		var err error
		wd, err = unix.InotifyAddWatch(fd, dir, mask)
		return err
	})
	if err != nil {
		return &os.PathError{Op: "inotify_add_watch", Path: dir, Err: err}
	}
	if old, ok := w.wds[dir]; ok && old != wd {
		delete(w.dirs, old)
	}
	w.dirs[wd], w.wds[dir] = dir, wd
	return nil
}

// Remove stops watching dir.
func (w *Watcher) Remove(dir string) error {
	dir = filepath.Clean(dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	wd, ok := w.wds[dir]
	if !ok || w.closed {
		return fmt.Errorf("%w: %s", fsnotify.ErrNonExistentWatch, dir)
	}
	w.forget(wd)
	// The kernel may have dropped it already (the directory is gone).
	_ = w.control(func(fd int) error { _, err := unix.InotifyRmWatch(fd, uint32(wd)); return err })
	return nil
}

// Close stops every watch, waits for the reading goroutine and closes
// Events and Errors.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	err := w.file.Close() // ends the read under way
	w.read.Wait()
	close(w.Events)
	close(w.Errors)
	return err
}

// control runs f on the inotify descriptor.
func (w *Watcher) control(f func(fd int) error) error {
	rc, err := w.file.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// forget drops a watch descriptor (w.mu held).
func (w *Watcher) forget(wd int) {
	if dir, ok := w.dirs[wd]; ok {
		delete(w.dirs, wd)
		if w.wds[dir] == wd {
			delete(w.wds, dir)
		}
	}
}

func (w *Watcher) readEvents() {
	defer w.read.Done()
	var buf [64 << 10]byte
	for {
		n, err := w.file.Read(buf[:])
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			if !w.sendError(err) {
				return
			}
			continue
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			raw := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameEnd := off + unix.SizeofInotifyEvent + int(raw.Len)
			if nameEnd > n {
				break // cannot happen: the kernel writes whole events
			}
			name := buf[off+unix.SizeofInotifyEvent : nameEnd]
			off = nameEnd
			if raw.Mask&unix.IN_Q_OVERFLOW != 0 {
				if !w.sendError(ErrEventOverflow) {
					return
				}
				continue
			}
			ev, ok := w.event(int(raw.Wd), raw.Mask, name)
			if ok && !w.send(ev) {
				return
			}
		}
	}
}

// event is what one inotify event says, if anything.
func (w *Watcher) event(wd int, m uint32, rawName []byte) (Event, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	dir, ok := w.dirs[wd]
	if !ok {
		return Event{}, false // removed since (Remove, or gone with its directory)
	}
	if m&(unix.IN_IGNORED|unix.IN_UNMOUNT) != 0 {
		w.forget(wd)
		return Event{}, false
	}
	name := dir
	if i := indexNUL(rawName); i > 0 {
		name = filepath.Join(dir, string(rawName[:i]))
	}
	if m&unix.IN_MOVE_SELF != 0 {
		// The watch follows the directory to wherever it went; its path
		// names something else now. Stop it, as fsnotify does.
		w.forget(wd)
		_ = w.control(func(fd int) error { _, err := unix.InotifyRmWatch(fd, uint32(wd)); return err })
	}
	var op Op
	if m&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
		op |= fsnotify.Create
	}
	if m&unix.IN_CLOSE_WRITE != 0 {
		op |= fsnotify.Write
	}
	if m&(unix.IN_DELETE|unix.IN_DELETE_SELF) != 0 {
		op |= fsnotify.Remove
	}
	if m&(unix.IN_MOVED_FROM|unix.IN_MOVE_SELF) != 0 {
		op |= fsnotify.Rename
	}
	if m&unix.IN_ATTRIB != 0 {
		op |= fsnotify.Chmod
	}
	return Event{Name: name, Op: op}, op != 0
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

func (w *Watcher) send(ev Event) bool { return deliver(w.Events, ev, w.done) }

func (w *Watcher) sendError(err error) bool { return deliver(w.Errors, err, w.done) }

// deliver hands v to whoever reads ch, or gives up (false) once done closes.
func deliver[T any](ch chan<- T, v T, done <-chan struct{}) bool {
	select {
	case ch <- v:
		return true
	case <-done:
		return false
	}
}
