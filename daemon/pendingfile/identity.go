package pendingfile

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// fileID tells files apart without reading them.
type fileID struct {
	ino, size int64
	mtime     time.Time
}

func idOf(fi os.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino = int64(st.Ino)
	}
	return id
}

// loadOurs reads the hashes of the files the previous daemon wrote.
func (s *Syncer) loadOurs() {
	data, _, err := readRegular(s.oursPath)
	if err != nil {
		return
	}
	for _, field := range strings.Fields(string(data)) {
		var h [32]byte
		if b, err := hex.DecodeString(field); err == nil && len(b) == len(h) {
			copy(h[:], b)
			s.inherited = append(s.inherited, h)
		}
	}
}

// noteOurs records, before a rewrite, the hashes of the file on disk (if it
// is the daemon's) and of the one about to replace it: a crash on either
// side of the swap leaves a file the next start knows as the daemon's.
func (s *Syncer) noteOurs(next [32]byte) {
	keep := [][32]byte{next}
	if cur := s.onDisk; cur != ([32]byte{}) && (cur == s.lastWritten || slices.Contains(s.inherited, cur)) {
		keep = append(keep, cur) // still what is on disk until the swap
	}
	var b strings.Builder
	for _, h := range keep {
		b.WriteString(hex.EncodeToString(h[:]))
		b.WriteByte('\n')
	}
	if fi, err := os.Lstat(s.oursPath); err == nil && !fi.Mode().IsRegular() {
		return // not ours to replace; at worst the next start reads a stale file
	}
	// Through a temporary file and a rename: a crash mid-write must leave
	// the old list, not an empty one (the rewrite comes right after an
	// acknowledged draft, exactly when a crash is tested for). Its name is
	// one removeLeftovers cleans up.
	tmp, err := writeTemp(s.path, []byte(b.String()))
	if err != nil {
		return
	}
	if err := os.Rename(tmp, s.oursPath); err != nil {
		os.Remove(tmp)
	}
}

// removeLeftovers deletes the temporary files of rewrites a crash cut short:
// copies of questions and answers that would otherwise pile up.
func (s *Syncer) removeLeftovers() {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(s.path), "."+filepath.Base(s.path)+".tmp-*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && os.Remove(m) == nil {
			s.logf("pending file: removed %s, left by an interrupted rewrite", m)
		}
	}
}
