// Command mcp measures `askuser-client mcp` as an agent meets it: the time
// from spawning the process to its initialize result and to a tools/list
// round trip (median of N spawns), the same for askuser-mcp started directly
// (without askuser-client's exec in between), and the server's resident
// memory while a tool call waits for the user.
//
//	go run ./bench/mcp            # builds the binaries (no -race) into a temp dir
//	go run ./bench/mcp -n 50 -bin /path/with/binaries
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"askuser/bench/internal/proc"
	"askuser/socketproto"
)

func main() {
	n := flag.Int("n", 20, "number of cold starts to time")
	binDir := flag.String("bin", "", "directory holding askuser-client, askuser-mcp and askuserd (default: build them)")
	flag.Parse()
	if err := run(*n, *binDir); err != nil {
		fmt.Fprintln(os.Stderr, "bench/mcp:", err)
		os.Exit(1)
	}
}

func run(n int, binDir string) error {
	tmp, err := os.MkdirTemp("", "au-mcpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if binDir == "" {
		binDir = filepath.Join(tmp, "bin")
		build := exec.Command("go", "build", "-o", binDir+"/", "./cmd/askuser-client", "./cmd/askuser-mcp", "./cmd/askuserd")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building the binaries (run from the repository root): %w", err)
		}
	}
	env := isolatedEnv(tmp)
	client := filepath.Join(binDir, "askuser-client")

	// The floor: the client started and run to its exit, doing nothing.
	var floors []time.Duration
	for range n {
		start := time.Now()
		help := exec.Command(client, "--help")
		help.Env = env
		if err := help.Run(); err != nil {
			return fmt.Errorf("askuser-client --help: %w", err)
		}
		floors = append(floors, time.Since(start))
	}
	fmt.Printf("MCP server, %d cold starts each (spawn → result, over stdio pipes):\n", n)
	fmt.Printf("  floor                      median %s  (askuser-client --help: spawn to exit)\n", ms(median(floors)))
	for _, argv := range [][]string{{client, "mcp"}, {filepath.Join(binDir, "askuser-mcp")}} {
		// Warm the page cache once so the first sample is not a disk read.
		if _, _, err := coldStart(argv, env); err != nil {
			return err
		}
		var inits, lists []time.Duration
		for range n {
			i, l, err := coldStart(argv, env)
			if err != nil {
				return err
			}
			inits = append(inits, i)
			lists = append(lists, l)
		}
		name := filepath.Base(argv[0])
		if len(argv) > 1 {
			name += " " + argv[1]
		}
		fmt.Printf("  %-19s initialize median %s  min %s  max %s\n", name, ms(median(inits)), ms(slices.Min(inits)), ms(slices.Max(inits)))
		fmt.Printf("  %-19s tools/list median %s  min %s  max %s   (after initialize)\n", name, ms(median(lists)), ms(slices.Min(lists)), ms(slices.Max(lists)))
	}

	rss, hwm, err := waitingRSS(binDir, env, tmp)
	if err != nil {
		return err
	}
	fmt.Printf("  RSS while a tool call waits: %.1f MiB (peak %.1f MiB)\n", float64(rss)/1024, float64(hwm)/1024)
	return nil
}

func isolatedEnv(root string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "ASKUSER_") {
			continue
		}
		env = append(env, kv)
	}
	for _, d := range []string{"run", "state", "config"} {
		_ = os.MkdirAll(filepath.Join(root, d), 0o700)
	}
	return append(env,
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"))
}

// server is a spawned `askuser-client mcp` spoken to in raw JSON-RPC lines,
// so that what is timed is the server, not a client library.
type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// argv is the command line that starts the server: askuser-client and "mcp",
// or askuser-mcp alone.
func spawn(argv []string, env []string, args ...string) (*server, error) {
	cmd := exec.Command(argv[0], append(argv[1:], args...)...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
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
	return &server{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

func (s *server) send(line string) error {
	_, err := io.WriteString(s.in, line+"\n")
	return err
}

// reply reads lines until the response with the given id.
func (s *server) reply(id int) (map[string]any, error) {
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("reading response %d: %w", id, err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("not JSON from the server: %q", line)
		}
		if got, ok := m["id"].(float64); ok && int(got) == id {
			if e, ok := m["error"]; ok {
				return nil, fmt.Errorf("response %d: error %v", id, e)
			}
			return m, nil
		}
	}
}

func (s *server) close() error {
	_ = s.in.Close()
	return s.cmd.Wait()
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

// handshake sends initialize and reads its result.
func (s *server) handshake() error {
	if err := s.send(initialize); err != nil {
		return err
	}
	_, err := s.reply(1)
	return err
}

// coldStart times spawn → initialize result, then tools/list's round trip.
func coldStart(argv []string, env []string) (time.Duration, time.Duration, error) {
	start := time.Now()
	s, err := spawn(argv, env)
	if err != nil {
		return 0, 0, err
	}
	defer s.close()
	if err := s.handshake(); err != nil {
		return 0, 0, err
	}
	initTime := time.Since(start)
	listStart := time.Now()
	if err := s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return 0, 0, err
	}
	if err := s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); err != nil {
		return 0, 0, err
	}
	m, err := s.reply(2)
	if err != nil {
		return 0, 0, err
	}
	// ask_user_question, ask_user and permission_prompt.
	if tools, _ := m["result"].(map[string]any)["tools"].([]any); len(tools) != 3 {
		return 0, 0, fmt.Errorf("tools/list gave %d tools, want 3", len(tools))
	}
	return initTime, time.Since(listStart), nil
}

// waitingRSS starts a daemon, makes one tool call wait on it, reads the
// server's VmRSS and VmHWM from /proc, then answers so everything ends cleanly.
func waitingRSS(binDir string, env []string, root string) (rss, hwm int, err error) {
	sock := filepath.Join(root, "run", "askuser", "askuserd.sock")
	c, stop, err := startWatched(binDir, env, sock)
	if err != nil {
		return 0, 0, err
	}
	defer stop()

	s, err := spawn([]string{filepath.Join(binDir, "askuser-client"), "mcp"}, env, "--no-autostart")
	if err != nil {
		return 0, 0, err
	}
	defer s.close()
	if err := s.handshake(); err != nil {
		return 0, 0, err
	}
	_ = s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"questions":[` +
		`{"question":"Which database should we use?","header":"Database","multiSelect":false,` +
		`"options":[{"label":"PostgreSQL (Recommended)"},{"label":"SQLite"}]}]}}}`
	if err := s.send(call); err != nil {
		return 0, 0, err
	}
	id, err := nextAdded(c)
	if err != nil {
		return 0, 0, err
	}
	// Let the call settle into waiting before reading its memory.
	time.Sleep(200 * time.Millisecond)
	rss, hwm, err = procMemory(s.cmd.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	a, err := socketproto.Dial(sock, 0)
	if err != nil {
		return 0, 0, err
	}
	defer a.Close()
	if err := a.Send(socketproto.AnswerRequest{RequestID: id, Via: socketproto.ViaCLI, Answers: []json.RawMessage{json.RawMessage(`"SQLite"`)}}); err != nil {
		return 0, 0, err
	}
	if _, err := s.reply(3); err != nil {
		return 0, 0, err
	}
	return rss, hwm, nil
}

// startWatched starts a daemon on sock and subscribes to it as a watcher;
// stop closes the connection and stops the daemon.
func startWatched(binDir string, env []string, sock string) (*socketproto.Conn, func(), error) {
	d := exec.Command(filepath.Join(binDir, "askuserd"), "serve")
	d.SysProcAttr = proc.DiesWithUs()
	d.Env = env
	if err := d.Start(); err != nil {
		return nil, nil, err
	}
	stopDaemon := func() {
		_ = d.Process.Signal(syscall.SIGTERM)
		_ = d.Wait()
	}
	c, err := dialWithin(sock, 10*time.Second)
	if err != nil {
		stopDaemon()
		return nil, nil, err
	}
	stop := func() { c.Close(); stopDaemon() }
	if err := c.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		stop()
		return nil, nil, err
	}
	return c, stop, nil
}

// dialWithin dials sock until it answers, for up to wait.
func dialWithin(sock string, wait time.Duration) (*socketproto.Conn, error) {
	for deadline := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		c, err := socketproto.Dial(sock, 0)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("askuserd did not answer on %s: %w", sock, err)
		}
	}
}

// nextAdded waits up to 10 s for the next request added, as a watcher
// hears it, and returns its id.
func nextAdded(c *socketproto.Conn) (string, error) {
	_ = c.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		m, err := c.Recv()
		if err != nil {
			return "", fmt.Errorf("waiting for the question at the daemon: %w", err)
		}
		if a, ok := m.(socketproto.RequestAdded); ok {
			return a.Request.RequestID, nil
		}
	}
}

// procMemory reads VmRSS and VmHWM (KiB) from /proc/PID/status.
func procMemory(pid int) (rss, hwm int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		var v int
		if _, e := fmt.Sscanf(line, "VmRSS: %d kB", &v); e == nil {
			rss = v
		}
		if _, e := fmt.Sscanf(line, "VmHWM: %d kB", &v); e == nil {
			hwm = v
		}
	}
	if rss == 0 {
		return 0, 0, errors.New("no VmRSS in /proc status")
	}
	return rss, hwm, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
