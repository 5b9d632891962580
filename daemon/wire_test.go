package daemon

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/rogpeppe/go-internal/txtar"

	"askuser/internal/config"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

var update = flag.Bool("update", false, "rewrite the daemon's lines (NAME< …) in testdata/wire/*.txtar")

// TestWire runs the wire exchanges of docs/contract.md §4, one file each in
// testdata/wire, against the real socket server with a fake clock.
//
// A file's "wire" section is a transcript, one line each:
//
//	# a comment, or a blank line      kept as written
//	NAME> {"type":"list"}             connection NAME (opened at its first line) sends the line
//	NAME< {"type":"list",…}           a line the daemon sent NAME (what -update rewrites)
//	NAME< (connection closed)         the daemon closed NAME
//	close NAME                        NAME hangs up
//	clock +10m                        the daemon's clock moves on (it starts at 2026-11-21T21:00:00Z)
//
// In a sent line, $(repeat N C) stands for N copies of the character C (for
// a line past limits.max_message_bytes). After each sent line, and after
// each hang-up, the runner reads everything the daemon had for every open
// connection in turn: the sender's first, then the others in the order they
// were opened. It knows it has everything when the daemon answers a wait
// for an id no request has (a probe it sends and leaves out), so there is
// no sleeping and the order is the daemon's own. Temporary paths read $ROOT
// and the daemon's pid $PID.
//
// An optional "config.toml" section is the daemon's configuration.
//
// go test ./daemon -run TestWire -update rewrites the daemon's lines.
func TestWire(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "wire", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/wire/*.txtar (%v)", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) { runWire(t, path) })
	}
}

// wireStart is where the fake clock starts.
var wireStart = time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var (
	wireSend   = regexp.MustCompile(`^([a-z][a-z0-9-]*)> (.*)$`)
	wireRecv   = regexp.MustCompile(`^([a-z][a-z0-9-]*)< `)
	wireClose  = regexp.MustCompile(`^close ([a-z][a-z0-9-]*)$`)
	wireClock  = regexp.MustCompile(`^clock \+(\S+)$`)
	wireRepeat = regexp.MustCompile(`\$\(repeat (\d+) (.)\)`)
	wirePid    = regexp.MustCompile(`"pid":\d+`)
)

func runWire(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	var script []byte
	var cfgText []byte
	haveScript := false
	for _, f := range ar.Files {
		switch f.Name {
		case "wire":
			script, haveScript = f.Data, true
		case "config.toml":
			cfgText = f.Data
		default:
			t.Fatalf("%s: unexpected section %q (want wire, config.toml)", path, f.Name)
		}
	}
	if !haveScript {
		t.Fatalf("%s: no wire section", path)
	}

	clock := &fakeClock{t: wireStart}
	ended := make(chan struct{}, 1024)
	run := func(ctx context.Context, s testdaemon.Setup) error {
		return Run(ctx, Options{Config: s.Config, SocketPath: s.Socket, PendingFilePath: s.PendingFile,
			Logger: s.Logger, Ready: s.Ready, Version: "VERSION",
			now: clock.now, connEnded: func() { ended <- struct{}{} }})
	}
	d := testdaemon.Serve(t, run, "", func(c *config.Config) {
		if cfgText == nil {
			return
		}
		parsed, err := config.Parse(cfgText)
		if err != nil {
			t.Fatalf("%s: config.toml: %v", path, err)
		}
		parsed.Daemon.StateDir = c.Daemon.StateDir
		*c = parsed
	})

	w := &wire{t: t, sock: d.Socket, root: d.Root, conns: map[string]*wireConn{}, ended: ended}
	defer w.closeAll()
	var out bytes.Buffer
	for n, line := range strings.Split(strings.TrimSuffix(string(script), "\n"), "\n") {
		where := fmt.Sprintf("%s:wire:%d", path, n+1)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			out.WriteString(line + "\n")
		case wireRecv.MatchString(line):
			// The daemon's lines are written anew below.
		case wireSend.MatchString(line):
			out.WriteString(line + "\n")
			m := wireSend.FindStringSubmatch(line)
			w.send(where, m[1], expandRepeat(m[2]))
			w.drain(&out, m[1])
		case wireClose.MatchString(line):
			out.WriteString(line + "\n")
			name := wireClose.FindStringSubmatch(line)[1]
			w.hangUp(where, name)
			w.drain(&out, "")
		case wireClock.MatchString(line):
			out.WriteString(line + "\n")
			dur, err := time.ParseDuration(wireClock.FindStringSubmatch(line)[1])
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			clock.advance(dur)
		default:
			t.Fatalf("%s: cannot read %q (want NAME> LINE, NAME< LINE, close NAME, clock +DURATION, # comment)", where, line)
		}
	}

	got := out.Bytes()
	if *update {
		for i := range ar.Files {
			if ar.Files[i].Name == "wire" {
				ar.Files[i].Data = got
			}
		}
		if err := os.WriteFile(path, txtar.Format(ar), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, script) {
		t.Errorf("%s: the daemon's lines differ (-want +got); go test ./daemon -run TestWire -update rewrites them\n%s",
			path, diff.Diff("want", script, "got", got))
	}
}

func expandRepeat(s string) string {
	return wireRepeat.ReplaceAllStringFunc(s, func(m string) string {
		sub := wireRepeat.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		return strings.Repeat(sub[2], n)
	})
}

// wire is one file's connections to the daemon.
type wire struct {
	t     *testing.T
	sock  string
	root  string
	conns map[string]*wireConn
	order []string // names, in the order they were opened
	probe int
	// ended counts the connections the daemon has finished with; gone, the
	// ones this side knows are over (hung up or closed by the daemon).
	ended chan struct{}
	seen  int
	gone  int
}

type wireConn struct {
	nc     net.Conn
	r      *bufio.Reader
	closed bool
}

func (w *wire) send(where, name, line string) {
	c := w.conns[name]
	if c == nil {
		nc, err := net.Dial("unix", w.sock)
		if err != nil {
			w.t.Fatalf("%s: dial: %v", where, err)
		}
		c = &wireConn{nc: nc, r: bufio.NewReader(nc)}
		w.conns[name] = c
		w.order = append(w.order, name)
	}
	if c.closed {
		w.t.Fatalf("%s: %s is closed", where, name)
	}
	if _, err := io.WriteString(c.nc, line+"\n"); err != nil {
		w.t.Fatalf("%s: %s: write: %v", where, name, err)
	}
}

func (w *wire) hangUp(where, name string) {
	c := w.conns[name]
	if c == nil || c.closed {
		w.t.Fatalf("%s: %s is not open", where, name)
	}
	c.nc.Close()
	c.closed = true
	w.gone++
	w.waitEnded()
}

// waitEnded waits until the daemon has handed every connection known to be
// over to its queue, so that a probe sent next is handled after it.
func (w *wire) waitEnded() {
	timeout := time.After(testdaemon.Wait)
	for w.seen < w.gone {
		select {
		case <-w.ended:
			w.seen++
		case <-timeout:
			w.t.Fatalf("the daemon did not see %d connection(s) end within %v", w.gone-w.seen, testdaemon.Wait)
		}
	}
}

// drain writes what the daemon sent each open connection, first's first.
func (w *wire) drain(out *bytes.Buffer, first string) {
	names := []string{}
	if first != "" {
		names = append(names, first)
	}
	for _, n := range w.order {
		if n != first {
			names = append(names, n)
		}
	}
	for _, n := range names {
		c := w.conns[n]
		if c.closed {
			continue
		}
		for _, line := range w.read(n, c) {
			out.WriteString(n + "< " + line + "\n")
		}
	}
}

// read returns the lines the daemon has sent c so far, up to the answer to
// a probe, or up to the daemon's closing c.
func (w *wire) read(name string, c *wireConn) []string {
	w.probe++
	id := fmt.Sprintf("probe.%d", w.probe)
	reply := fmt.Sprintf(`{"type":"error","requestId":%q,"code":"not_found"`, id)
	// A write to a connection the daemon closed fails; what it sent before
	// closing is still there to read.
	_, _ = fmt.Fprintf(c.nc, `{"type":"wait","requestId":%q}`+"\n", id)
	var lines []string
	_ = c.nc.SetReadDeadline(time.Now().Add(testdaemon.Wait))
	defer c.nc.SetReadDeadline(time.Time{})
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
				c.closed = true
				c.nc.Close()
				w.gone++
				w.waitEnded()
				return append(lines, "(connection closed)")
			}
			w.t.Fatalf("%s: reading the daemon's lines: %v (so far %q)", name, err, lines)
		}
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, reply) {
			return lines
		}
		lines = append(lines, w.stable(line))
	}
}

// stable is line with what changes from run to run written as names.
func (w *wire) stable(line string) string {
	line = strings.ReplaceAll(line, w.root, "$ROOT")
	return wirePid.ReplaceAllString(line, `"pid":$$PID`)
}

func (w *wire) closeAll() {
	for _, c := range w.conns {
		if !c.closed {
			c.nc.Close()
		}
	}
}

// request_added carries the request as the journal wrote it (encoded once,
// daemon/transitions.go): the line is byte for byte what encoding the
// event gives, for a request with every kind of field.
func TestRequestAddedIsTheEventEncoded(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(nc)
	if _, err := nc.Write([]byte(`{"type":"subscribe","role":"watch"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	// Subscribed once the snapshot is here: an ask before that would be in
	// the snapshot, not an event.
	if line, err := br.ReadBytes('\n'); err != nil || !bytes.Contains(line, []byte(`"type":"snapshot"`)) {
		t.Fatalf("subscribing: %v %s", err, line)
	}
	a := testdaemon.DialRaw(t, sock)
	a.Send(`{"type":"ask_user_request","requestId":"enc1","agent":{"id":"a-1","name":"claude","cwd":"/tmp/x <&>"},` +
		`"metadata":{"ticket":42,"note":"\u202e <b>"},"questions":[{"question":"Which <one> & why?","header":"DB",` +
		`"options":[{"label":"PostgreSQL","description":"Battle-tested"},{"label":"SQLite"}],"multiSelect":true}]}` + "\n")
	a.Expect("ask_user_queued requestId=enc1")
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no request_added: %v", err)
		}
		msg, err := socketproto.DecodeFromDaemon(line)
		if err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		added, ok := msg.(socketproto.RequestAdded)
		if !ok {
			continue
		}
		again, err := socketproto.Encode(added)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(line, again) {
			t.Errorf("request_added differs from the event encoded:\n got %s\nwant %s", line, again)
		}
		return
	}
}
