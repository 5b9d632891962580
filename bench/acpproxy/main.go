// Command acpproxy measures the hops `askuser-client acp-proxy` adds
// between an ACP agent, its editor and askuser: from the agent writing a
// session/request_permission to askuser's request_added (as a watcher
// hears it) and to the editor reading it, next to the socket's own hop (an
// ask_user_request sent straight to the daemon, on a new connection as
// askclient dials one, and on an open one, to request_added); and from the
// editor's answer to askuser's copy withdrawn. The agent is this program
// again, playing a minimal ACP agent; the editor is this program too.
// What the relay adds to every other message is BenchmarkRelay in
// cmd/internal/acpproxy.
//
//	go run ./bench/acpproxy [-n 300] [-bin DIR]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"askuser/bench/internal/benchdaemon"
	"askuser/bench/internal/proc"
	"askuser/socketproto"
)

const agentEnv = "ASKUSER_BENCH_ACP_AGENT"

func main() {
	if os.Getenv(agentEnv) != "" {
		os.Exit(agent())
	}
	n := flag.Int("n", 300, "permission requests per measurement")
	binDir := flag.String("bin", "", "directory with askuserd and askuser-client (default: build them, without -race)")
	flag.Parse()
	if err := run(*n, *binDir); err != nil {
		fmt.Fprintln(os.Stderr, "acpproxy:", err)
		os.Exit(1)
	}
}

// agent is a minimal ACP agent: it answers initialize and session/new, and
// for each "_bench/ask" request N sends session/request_permission N with
// the time it wrote it.
func agent() int {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentInfo":{"name":"bench-agent","version":"1"}}}`+"\n", m.ID)
		case "session/new":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}`+"\n", m.ID)
		case "_bench/ask":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"method":"session/request_permission","params":{"sessionId":"s1","_meta":{"t":%d},"toolCall":{"toolCallId":"t%s","title":"echo %s","kind":"execute","rawInput":{"command":"echo %s"}},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"},{"optionId":"r","name":"Reject","kind":"reject_once"}]}}`+"\n",
				m.ID, time.Now().UnixNano(), m.ID, m.ID, m.ID)
		}
		if err := out.Flush(); err != nil {
			return 1
		}
	}
}

func run(n int, binDir string) error {
	root, err := os.MkdirTemp("", "au-bench-acp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if binDir, err = buildBinaries(root, binDir); err != nil {
		return err
	}
	d, err := benchdaemon.Start(filepath.Join(binDir, "askuserd"), root, "")
	if err != nil {
		return err
	}
	defer d.Stop()
	watch, events, err := watchEvents(d.Sock)
	if err != nil {
		return err
	}
	defer watch.Close()

	p, err := startProxy(binDir, root)
	if err != nil {
		return err
	}
	defer p.stop()
	toAskuser, toEditor, withdrawn, err := p.measure(n, events)
	if err != nil {
		return err
	}

	fresh, err := hop(d.Sock, nil, n, events)
	if err != nil {
		return err
	}
	conn, err := socketproto.Dial(d.Sock, 0)
	if err != nil {
		return err
	}
	defer conn.Close()
	go func() { _, _ = io.Copy(io.Discard, conn.NetConn()) }()
	open, err := hop(d.Sock, conn, n, events)
	if err != nil {
		return err
	}
	fmt.Printf("%d permission requests, %d asks each way\n", n, n)
	report("agent → askuser request_added (through acp-proxy)", toAskuser)
	report("agent → editor reads it (through acp-proxy)", toEditor)
	report("ask_user_request, new connection → request_added", fresh)
	report("ask_user_request, open connection → request_added", open)
	report("editor answers → askuser's copy withdrawn", withdrawn)
	return nil
}

// buildBinaries returns binDir, or when it is empty builds askuserd and
// askuser-client under root and returns where they went.
func buildBinaries(root, binDir string) (string, error) {
	if binDir != "" {
		return binDir, nil
	}
	binDir = filepath.Join(root, "bin")
	build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/askuserd", "./cmd/askuser-client")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building (run from the module root): %w", err)
	}
	return binDir, nil
}

// watchEvents subscribes as a watcher and stamps every event with when it
// was read; the snapshot is already consumed when it returns.
func watchEvents(sock string) (*socketproto.Conn, <-chan received, error) {
	watch, err := socketproto.Dial(sock, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := watch.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		watch.Close()
		return nil, nil, err
	}
	events := make(chan received, 16)
	go func() {
		for {
			m, err := watch.Recv()
			if err != nil {
				close(events)
				return
			}
			events <- received{msg: m, at: time.Now()}
		}
	}()
	<-events // the snapshot
	return watch, events, nil
}

// proxy is a running `askuser-client acp-proxy` with this program as its
// agent and the bench as its editor.
type proxy struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines <-chan received
}

// startProxy starts the proxy and completes initialize and session/new.
func startProxy(binDir, root string) (*proxy, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(binDir, "askuser-client"), "acp-proxy", "--no-autostart", "--", self)
	cmd.SysProcAttr = proc.DiesWithUs()
	cmd.Env = append(os.Environ(), agentEnv+"=1",
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"ASKUSER_SOCKET=")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proxy{cmd: cmd, in: in, lines: readLines(out)}
	if err := p.handshake(root); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// readLines stamps every line r gives with when it was read.
func readLines(r io.Reader) <-chan received {
	lines := make(chan received, 16)
	go func() {
		br := bufio.NewReader(r)
		for {
			l, err := br.ReadBytes('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- received{line: l, at: time.Now()}
		}
	}()
	return lines
}

func (p *proxy) send(s string) error { _, err := io.WriteString(p.in, s+"\n"); return err }

func (p *proxy) stop() { p.in.Close(); _ = p.cmd.Wait() }

func (p *proxy) handshake(root string) error {
	if err := p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"bench-editor"}}}`); err != nil {
		return err
	}
	<-p.lines
	if err := p.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"` + root + `","mcpServers":[]}}`); err != nil {
		return err
	}
	<-p.lines
	return nil
}

// measure has the agent ask n times and the editor allow each: how long
// until askuser adds the request, until the editor reads it, and from the
// editor's answer until askuser's copy is withdrawn.
func (p *proxy) measure(n int, events <-chan received) (toAskuser, toEditor, withdrawn []time.Duration, err error) {
	for i := range n {
		id := i + 10
		if err := p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_bench/ask","params":{}}`, id)); err != nil {
			return nil, nil, nil, err
		}
		wrote, read, err := p.readPermission()
		if err != nil {
			return nil, nil, nil, err
		}
		toEditor = append(toEditor, read.Sub(wrote))
		added, err := next[socketproto.RequestAdded](events)
		if err != nil {
			return nil, nil, nil, err
		}
		toAskuser = append(toAskuser, added.at.Sub(wrote))
		answered := time.Now()
		if err := p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":"a"}}}`, id)); err != nil {
			return nil, nil, nil, err
		}
		res, err := next[socketproto.RequestResolved](events)
		if err != nil {
			return nil, nil, nil, err
		}
		withdrawn = append(withdrawn, res.at.Sub(answered))
	}
	return toAskuser, toEditor, withdrawn, nil
}

// readPermission reads the editor's next line, a session/request_permission,
// and returns when the agent wrote it and when the editor read it.
func (p *proxy) readPermission() (wrote, read time.Time, err error) {
	l, ok := <-p.lines
	if !ok {
		return time.Time{}, time.Time{}, fmt.Errorf("the proxy ended")
	}
	var req struct {
		Params struct {
			Meta struct {
				T int64 `json:"t"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(l.line, &req); err != nil || req.Params.Meta.T == 0 {
		return time.Time{}, time.Time{}, fmt.Errorf("the editor got %q", l.line)
	}
	return time.Unix(0, req.Params.Meta.T), l.at, nil
}

// hop times n asks sent straight to the daemon until request_added, each
// on a new connection when open is nil, else all on open.
func hop(sock string, open *socketproto.Conn, n int, events <-chan received) ([]time.Duration, error) {
	var out []time.Duration
	for i := range n {
		id := fmt.Sprintf("hop-%p-%d", open, i)
		t0 := time.Now()
		c := open
		if c == nil {
			var err error
			if c, err = socketproto.Dial(sock, 0); err != nil {
				return nil, err
			}
		}
		at, err := askAndCancel(c, id, events)
		if open == nil {
			c.Close()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, at.Sub(t0))
	}
	return out, nil
}

// askAndCancel asks on c, and once the watcher hears it added cancels it
// and waits for it to be resolved; it returns when it was added.
func askAndCancel(c *socketproto.Conn, id string, events <-chan received) (time.Time, error) {
	multi, wait := false, true
	if err := c.Send(socketproto.AskUserRequest{Request: socketproto.Request{RequestID: id, Tool: socketproto.ToolAskUser,
		Questions: []socketproto.Question{{Question: "Allow?", MultiSelect: &multi, Options: []socketproto.Option{{Label: "Allow"}, {Label: "Deny"}}}}},
		Wait: &wait}); err != nil {
		return time.Time{}, err
	}
	added, err := next[socketproto.RequestAdded](events)
	if err != nil {
		return time.Time{}, err
	}
	if err := c.Send(socketproto.Cancel{RequestID: id}); err != nil {
		return time.Time{}, err
	}
	if _, err := next[socketproto.RequestResolved](events); err != nil {
		return time.Time{}, err
	}
	return added.at, nil
}

type received struct {
	msg  socketproto.Message
	line []byte
	at   time.Time
}

// timed is a message of type T and when it was read.
type timed[T any] struct {
	msg T
	at  time.Time
}

// next waits for the next event of type T, skipping others.
func next[T socketproto.Message](events <-chan received) (timed[T], error) {
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r, ok := <-events:
			if !ok {
				return timed[T]{}, fmt.Errorf("the watcher's connection ended")
			}
			if m, ok := r.msg.(T); ok {
				return timed[T]{m, r.at}, nil
			}
		case <-deadline:
			var zero T
			return timed[T]{}, fmt.Errorf("no %s within 10 s", zero.MessageType())
		}
	}
}

func report(name string, d []time.Duration) {
	slices.Sort(d)
	q := func(p int) time.Duration { return d[(len(d)-1)*p/100].Round(time.Microsecond) }
	fmt.Printf("%-52s p50 %9s  p90 %9s  p99 %9s\n", name, q(50), q(90), q(99))
}
