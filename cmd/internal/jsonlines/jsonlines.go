// Package jsonlines reads the newline-framed streams the JSON-RPC relays pass
// on (mcp-proxy, acp-proxy): each line whole, its newline included, with no
// length limit, since a relay passes on what its two ends would have
// exchanged without it. It knows nothing of JSON-RPC.
package jsonlines

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// Read calls each for every line of in, its newline included (the last
// one may lack it), until in ends or each returns false.
func Read(in io.Reader, each func([]byte) bool) error {
	br := bufio.NewReaderSize(in, 64*1024)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && !each(line) {
			return nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// Writer writes whole lines to one side of a relay: the relayed lines and
// the relay's own answers share it, and never interleave. After a failed
// write it refuses every later one with that error.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewWriter writes lines to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes line, which holds its newline.
func (l *Writer) Write(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if _, err := l.w.Write(line); err != nil {
		l.err = err
	}
	return l.err
}
