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
	if binDir == "" {
		binDir = filepath.Join(root, "bin")
		build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/askuserd", "./cmd/askuser-client")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building (run from the module root): %w", err)
		}
	}
	d, err := benchdaemon.Start(filepath.Join(binDir, "askuserd"), root, "")
	if err != nil {
		return err
	}
	defer d.Stop()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	watch, err := socketproto.Dial(d.Sock, 0)
	if err != nil {
		return err
	}
	defer watch.Close()
	if err := watch.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		return err
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

	proxy := exec.Command(filepath.Join(binDir, "askuser-client"), "acp-proxy", "--no-autostart", "--", self)
	proxy.SysProcAttr = proc.DiesWithUs()
	proxy.Env = append(os.Environ(), agentEnv+"=1",
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"ASKUSER_SOCKET=")
	proxy.Stderr = io.Discard
	toProxy, err := proxy.StdinPipe()
	if err != nil {
		return err
	}
	fromProxy, err := proxy.StdoutPipe()
	if err != nil {
		return err
	}
	if err := proxy.Start(); err != nil {
		return err
	}
	defer func() { toProxy.Close(); _ = proxy.Wait() }()
	lines := make(chan received, 16)
	go func() {
		br := bufio.NewReader(fromProxy)
		for {
			l, err := br.ReadBytes('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- received{line: l, at: time.Now()}
		}
	}()
	send := func(s string) error { _, err := io.WriteString(toProxy, s+"\n"); return err }
	if err := send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"bench-editor"}}}`); err != nil {
		return err
	}
	<-lines
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"` + root + `","mcpServers":[]}}`); err != nil {
		return err
	}
	<-lines

	var toAskuser, toEditor, withdrawn []time.Duration
	for i := range n {
		id := i + 10
		if err := send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_bench/ask","params":{}}`, id)); err != nil {
			return err
		}
		l, ok := <-lines
		if !ok {
			return fmt.Errorf("the proxy ended")
		}
		var req struct {
			Params struct {
				Meta struct {
					T int64 `json:"t"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(l.line, &req); err != nil || req.Params.Meta.T == 0 {
			return fmt.Errorf("the editor got %q", l.line)
		}
		wrote := time.Unix(0, req.Params.Meta.T)
		toEditor = append(toEditor, l.at.Sub(wrote))
		added, err := next[socketproto.RequestAdded](events)
		if err != nil {
			return err
		}
		toAskuser = append(toAskuser, added.at.Sub(wrote))
		answered := time.Now()
		if err := send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":"a"}}}`, id)); err != nil {
			return err
		}
		res, err := next[socketproto.RequestResolved](events)
		if err != nil {
			return err
		}
		withdrawn = append(withdrawn, res.at.Sub(answered))
	}

	ask := func(c *socketproto.Conn, id string) error {
		multi, wait := false, true
		return c.Send(socketproto.AskUserRequest{Request: socketproto.Request{RequestID: id, Tool: socketproto.ToolAskUser,
			Questions: []socketproto.Question{{Question: "Allow?", MultiSelect: &multi, Options: []socketproto.Option{{Label: "Allow"}, {Label: "Deny"}}}}},
			Wait: &wait})
	}
	hop := func(open *socketproto.Conn) ([]time.Duration, error) {
		var out []time.Duration
		for i := range n {
			id := fmt.Sprintf("hop-%p-%d", open, i)
			t0 := time.Now()
			c := open
			if c == nil {
				var err error
				if c, err = socketproto.Dial(d.Sock, 0); err != nil {
					return nil, err
				}
			}
			if err := ask(c, id); err != nil {
				return nil, err
			}
			added, err := next[socketproto.RequestAdded](events)
			if err != nil {
				return nil, err
			}
			out = append(out, added.at.Sub(t0))
			if err := c.Send(socketproto.Cancel{RequestID: id}); err != nil {
				return nil, err
			}
			if _, err := next[socketproto.RequestResolved](events); err != nil {
				return nil, err
			}
			if open == nil {
				c.Close()
			}
		}
		return out, nil
	}
	fresh, err := hop(nil)
	if err != nil {
		return err
	}
	conn, err := socketproto.Dial(d.Sock, 0)
	if err != nil {
		return err
	}
	defer conn.Close()
	go func() { _, _ = io.Copy(io.Discard, conn.NetConn()) }()
	open, err := hop(conn)
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
