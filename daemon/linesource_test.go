package daemon

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"askuser/socketproto"

	"golang.org/x/sys/unix"
)

// TestLineSourceFramesLikeLineReader feeds the same bytes to lineSource and
// to socketproto.LineReader: the daemon must frame exactly as the protocol
// package defines it.
func TestLineSourceFramesLikeLineReader(t *testing.T) {
	t.Parallel()
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
			if got, want := frameBoth(t, writes, max); got != want {
				t.Errorf("lineSource %s\nLineReader %s", got, want)
			}
		})
	}
}

// frameBoth is what lineSource (got) and socketproto.LineReader (want) make
// of the same writes.
func frameBoth(t testing.TB, writes []string, max int) (got, want string) {
	t.Helper()
	want = frame(t, writes, func(c *net.UnixConn) func() ([]byte, error) {
		return socketproto.NewLineReader(c, max).ReadLine
	})
	got = frame(t, writes, func(c *net.UnixConn) func() ([]byte, error) {
		ls, err := newLineSource(c, max, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return func() ([]byte, error) {
			for {
				line, err := ls.next()
				if !errors.Is(err, errIdle) {
					return line, err
				}
				ls.waitReadable()
			}
		}
	})
	return got, want
}

// frame writes the chunks into a socket pair and describes what read makes of them.
func frame(t testing.TB, writes []string, reader func(*net.UnixConn) func() ([]byte, error)) string {
	t.Helper()
	w, r := socketPair(t)
	defer r.Close()
	go func() {
		for _, b := range writes {
			_, _ = w.Write([]byte(b))
		}
		w.Close()
	}()
	read := reader(r)
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

// socketPair is a connected pair of Unix stream sockets.
func socketPair(t testing.TB) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var conns [2]*net.UnixConn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c.(*net.UnixConn)
	}
	return conns[0], conns[1]
}

// FuzzLineSourceMatchesLineReader: whatever the bytes and however they are
// split into writes, the daemon frames them as the protocol package does.
func FuzzLineSourceMatchesLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\nxx\r\n\n"), uint8(3))
	f.Add([]byte(strings.Repeat("x", 16)+"\r\n"), uint8(1))
	f.Add([]byte("ok\n  \r"), uint8(2))
	f.Add([]byte(strings.Repeat("y", 40)), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		const max = 16
		var writes []string
		step := int(split%16) + 1
		for i := 0; i < len(data); i += step {
			writes = append(writes, string(data[i:min(i+step, len(data))]))
		}
		if got, want := frameBoth(t, writes, max); got != want {
			t.Errorf("writes %q\nlineSource %s\nLineReader %s", writes, got, want)
		}
	})
}
