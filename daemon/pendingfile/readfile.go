package pendingfile

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"

	"askuser/internal/statefile"

	"golang.org/x/sys/unix"
)

// errTooLarge: the file is larger than maxFileBytes.
var errTooLarge = errors.New("larger than the pending file can be")

// openRegular opens path for reading if it is a regular file, without ever
// blocking on a FIFO or following a symlink (statefile.Open). A variable, so
// that a test can make a file unreadable even to root.
var openRegular = func(path string) (*os.File, os.FileInfo, error) {
	return statefile.Open(path, unix.O_RDONLY, 0)
}

// readRegular reads the pending file if it is a regular file of at most
// maxFileBytes (openRegular); a larger file is not read (errTooLarge, with
// its FileInfo).
func readRegular(path string) ([]byte, os.FileInfo, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	if fi.Size() > maxFileBytes {
		return nil, fi, errTooLarge
	}
	// Read into a buffer of the size the file has (a byte more, to meet the
	// end without growing it): io.ReadAll's doubling takes up to twice as
	// much, for a file the daemon reads back at every rewrite.
	data := make([]byte, 0, fi.Size()+1)
	for len(data) <= maxFileBytes {
		if len(data) == cap(data) {
			data = slices.Grow(data, 4096) // it grew since the stat
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fi, err
		}
	}
	if len(data) > maxFileBytes {
		return nil, fi, errTooLarge
	}
	return data, fi, nil
}

// sumRegular is the SHA-256 of what readRegular would read, found without
// holding the file: most reads are of the daemon's own last write, megabytes
// at 10,000 requests, and need only its hash. ok is false when the file
// cannot be read or is too large; readRegular then says why.
func sumRegular(path string) (sum [32]byte, fi os.FileInfo, ok bool) {
	f, fi, err := openRegular(path)
	if err != nil {
		return sum, fi, false
	}
	defer f.Close()
	if fi.Size() > maxFileBytes {
		return sum, fi, false
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxFileBytes+1))
	if err != nil || n > maxFileBytes {
		return sum, fi, false
	}
	h.Sum(sum[:0])
	return sum, fi, true
}

// copyAside copies a file too large to read into memory to kept, through a
// temporary file (copyTemp) renamed into place.
func copyAside(path, kept string) error {
	in, _, err := openRegular(path)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := copyTemp(kept, in)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, kept); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// revisionOnDisk is the revision of the file at path, 0 when it has none or
// cannot be read.
func revisionOnDisk(path string) int64 {
	data, _, err := readRegular(path)
	if err != nil {
		return 0
	}
	var f struct {
		Revision int64 `json:"revision"`
	}
	if json.Unmarshal(data, &f) != nil {
		return 0
	}
	return f.Revision
}
