// Package jsonlines reads the newline-framed streams the JSON-RPC relays pass
// on (mcp-proxy, acp-proxy): each line whole, its newline included, with no
// length limit, since a relay passes on what its two ends would have
// exchanged without it. It knows nothing of JSON-RPC.
package jsonlines

import (
	"bufio"
	"errors"
	"io"
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
