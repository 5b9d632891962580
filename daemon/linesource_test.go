package daemon

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"askuser/socketproto"
)

// TestLineSourceFramesLikeLineReader feeds the same bytes to lineSource and
// to socketproto.LineReader: the daemon must frame exactly as the protocol
// package defines it.
func TestLineSourceFramesLikeLineReader(t *testing.T) {
	const max = 16
	cases := map[string][]string{ // writes, in order; the writer closes after
		"one line":               {"{\"a\":1}\n"},
		"two lines in one write": {"one\ntwo\n"},
		"split across writes":    {"{\"a\"", ":1}\n", "x", "y\n"},
		"blank lines skipped":    {"\n\n  \r\nabc\n\n"},
		"crlf":                   {"abc\r\n"},
		"exactly the limit":      {strings.Repeat("x", max) + "\n"},
		"one over the limit":     {strings.Repeat("x", max+1) + "\n"},
		"over the limit unended": {strings.Repeat("x", max+5)},
		"over after a good line": {"ok\n" + strings.Repeat("y", 40) + "\n"},
		"limit counts the cr":    {strings.Repeat("x", max) + "\r\n"},
		"unfinished last line":   {"ok\npartial"},
		"trailing whitespace":    {"ok\n  \r"},
		"cr only at the limit":   {strings.Repeat("x", max) + "\r"},
		"many crs":               {"abc\r\r\n"},
		"nothing":                {},
		"many small writes":      strings.Split("a\nbb\nccc\n", ""),
	}
	for name, writes := range cases {
		t.Run(name, func(t *testing.T) {
			want := frame(t, writes, func(c *net.UnixConn) func() ([]byte, error) {
				lr := socketproto.NewLineReader(c, max)
				return lr.ReadLine
			})
			got := frame(t, writes, func(c *net.UnixConn) func() ([]byte, error) {
				ls, err := newLineSource(c, max)
				if err != nil {
					t.Fatal(err)
				}
				return ls.next
			})
			if got != want {
				t.Errorf("lineSource %s\nLineReader %s", got, want)
			}
		})
	}
}

// frame writes the chunks into a socket pair and describes what read makes of them.
func frame(t *testing.T, writes []string, reader func(*net.UnixConn) func() ([]byte, error)) string {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: t.TempDir() + "/s", Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("unix", ln.Addr().String())
		if err != nil {
			return
		}
		for _, w := range writes {
			_, _ = c.Write([]byte(w))
		}
		c.Close()
	}()
	c, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	read := reader(c)
	var out []string
	for {
		line, err := read()
		switch {
		case errors.Is(err, socketproto.ErrTooLarge):
			return strings.Join(append(out, "TOO LARGE"), " | ")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return strings.Join(append(out, "UNEXPECTED EOF"), " | ")
		case errors.Is(err, io.EOF):
			return strings.Join(append(out, "EOF"), " | ")
		case err != nil:
			return strings.Join(append(out, fmt.Sprint(err)), " | ")
		}
		out = append(out, fmt.Sprintf("%q", line))
	}
}
