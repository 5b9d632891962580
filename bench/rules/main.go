// Command rules measures a permission prompt settled by a remembered
// decision (docs/contract.md §13) against the same prompt answered at once
// by a pane:
//
//	go run ./bench/rules [-n 200]
//
// Each run is the real `askuser-client claude-hook` given Claude Code's
// PermissionRequest input for `go test ./...`, from the hook's start to its
// exit with the decision on stdout (what Claude Code waits for), against
// the real askuserd. "pane": a subscriber answers Allow (with the digest
// of the input, as a pane that showed it) the moment the request arrives.
// "rule": the same prompt after the user chose "Allow, and remember"; no
// surface sees it. p50 and p90 of each.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"askuser/bench/internal/proc"
	"askuser/socketproto"
)

func main() {
	n := flag.Int("n", 200, "hook runs per measurement")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "bench/rules:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	root, err := os.MkdirTemp("", "au-br-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := build(root); err != nil {
		return err
	}
	env, sock, stop, err := startDaemon(root)
	if err != nil {
		return err
	}
	defer stop()

	pane, err := socketproto.Dial(sock, 0)
	if err != nil {
		return err
	}
	defer pane.Close()
	if err := pane.Send(socketproto.Subscribe{Role: socketproto.RolePane}); err != nil {
		return err
	}
	var choice atomic.Value // the label prefix the pane chooses
	choice.Store("Allow")
	var seen atomic.Int64
	go answerAtOnce(pane, &choice, &seen)

	input, _ := json.Marshal(map[string]any{
		"session_id": "bench", "cwd": filepath.Join(root, "shop"), "hook_event_name": "PermissionRequest",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./...", "description": "Run the tests"},
	})
	h := hook{bin: filepath.Join(root, "askuser-client"), env: env, input: input}

	fmt.Printf("bench/rules: claude-hook, PermissionRequest for Bash `go test ./...`\n")
	if err := h.measure("pane", n); err != nil {
		return err
	}
	choice.Store(socketproto.RememberPrefix)
	if _, err := h.run(); err != nil { // the user chooses "Allow, and remember"
		return err
	}
	before := seen.Load()
	if err := h.measure("rule", n); err != nil {
		return err
	}
	if got := seen.Load() - before; got != 0 {
		return fmt.Errorf("%d prompts reached the pane after the rule was made", got)
	}
	return nil
}

// build builds askuserd and askuser-client into root.
func build(root string) error {
	for _, prog := range []string{"askuserd", "askuser-client"} {
		build := exec.Command("go", "build", "-o", filepath.Join(root, prog), "./cmd/"+prog)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building %s (run from the module root): %w", prog, err)
		}
	}
	return nil
}

// startDaemon runs `askuserd serve` with its XDG dirs under root, beside a
// project dir root/shop, and waits until it answers; env is the
// environment that reaches it.
func startDaemon(root string) (env []string, sock string, stop func(), err error) {
	env = append(os.Environ(),
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"ASKUSER_SOCKET=", "ASKUSER_AGENT_ID=")
	for _, d := range []string{"run", "state", "config", "shop/.git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			return nil, "", nil, err
		}
	}
	d := exec.Command(filepath.Join(root, "askuserd"), "serve", "--log-level", "warn")
	d.Env, d.Stderr, d.SysProcAttr = env, os.Stderr, proc.DiesWithUs()
	if err := d.Start(); err != nil {
		return nil, "", nil, err
	}
	stop = func() { _ = d.Process.Signal(syscall.SIGTERM); _ = d.Wait() }
	sock = filepath.Join(root, "run", "askuser", "askuserd.sock")
	if err := waitForSocket(sock); err != nil {
		stop()
		return nil, "", nil, err
	}
	return env, sock, stop, nil
}

// hook runs `askuser-client claude-hook` on one PermissionRequest.
type hook struct {
	bin   string
	env   []string
	input []byte
}

// run runs the hook once and returns how long it took to allow.
func (h hook) run() (time.Duration, error) {
	cmd := exec.Command(h.bin, "claude-hook")
	cmd.Env, cmd.Stdin = h.env, bytes.NewReader(h.input)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	took := time.Since(start)
	if !strings.Contains(out.String(), `"behavior":"allow"`) {
		return 0, fmt.Errorf("the hook did not allow: %s", out.String())
	}
	return took, nil
}

// measure runs the hook n times and prints its p50 and p90.
func (h hook) measure(name string, n int) error {
	var ds []time.Duration
	for range n {
		t, err := h.run()
		if err != nil {
			return err
		}
		ds = append(ds, t)
	}
	slices.Sort(ds)
	fmt.Printf("%-5s hook start → decision: p50 %6.2f ms  p90 %6.2f ms  (n=%d)\n", name,
		ms(ds[len(ds)/2]), ms(ds[len(ds)*9/10]), n)
	return nil
}

// answerAtOnce is a pane that answers every request the moment it arrives,
// choosing the first option whose label begins with choice, with the digest
// of its preview (it "showed" it whole).
func answerAtOnce(c *socketproto.Conn, choice *atomic.Value, seen *atomic.Int64) {
	for {
		m, err := c.Recv()
		if err != nil {
			if socketproto.Broken(err) || errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		a, ok := m.(socketproto.RequestAdded)
		if !ok {
			continue
		}
		seen.Add(1)
		for _, o := range a.Request.Questions[0].Options {
			if strings.HasPrefix(o.Label, choice.Load().(string)) {
				ans, _ := json.Marshal(map[string]any{"selected": []string{o.Label}, "previewDigest": socketproto.PreviewDigest(o.Preview)})
				_ = c.Send(socketproto.AnswerRequest{RequestID: a.Request.RequestID, Answers: []json.RawMessage{ans}, Via: socketproto.ViaPane})
				break
			}
		}
	}
}

func waitForSocket(sock string) error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return nil
		}
	}
	return fmt.Errorf("askuserd did not answer on %s", sock)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
