// Command clientlatency measures what an agent or a script pays per
// askuser-client command: the whole-process latency (exec, start-up, connect,
// send, read, print, exit) of `askuser-client schema`, `status`, `list` and
// `ask`, each next to the same work done by a minimal Go client
// (bench/clientlatency/minimal, a separate small binary built the same way),
// with the ratio between the two. The bare protocol round trips in this
// process give the floor under both.
//
//	go run ./bench/clientlatency [-n 200] [-static] [-bin DIR]
//
// -static builds all three binaries with CGO_ENABLED=0; without it they are
// built as `go build` builds them here (with cgo, the net package links the
// C library dynamically, which costs every process about a millisecond).
// The answerer is a goroutine subscribed as watch that answers every
// request_added at once, so the numbers are the tool's overhead, not a person.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"askuser/bench/internal/proc"
	"askuser/socketproto"
)

func main() {
	n := flag.Int("n", 200, "runs per measurement")
	binDir := flag.String("bin", "", "directory with askuserd, askuser-client and minimal (default: build them, without -race)")
	static := flag.Bool("static", false, "build with CGO_ENABLED=0 (statically linked binaries)")
	flag.Parse()
	if err := run(*n, *binDir, *static); err != nil {
		fmt.Fprintln(os.Stderr, "clientlatency:", err)
		os.Exit(1)
	}
}

func run(n int, binDir string, static bool) error {
	root, err := os.MkdirTemp("", "au-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if binDir, err = buildBinaries(root, binDir, static); err != nil {
		return err
	}
	env, sock, stopDaemon, err := startDaemon(root, binDir)
	if err != nil {
		return err
	}
	defer stopDaemon()
	stop, err := startAnswerer(sock)
	if err != nil {
		return err
	}
	defer stop()

	client := filepath.Join(binDir, "askuser-client")
	minimal := filepath.Join(binDir, "minimal")
	printSizes(static, client, minimal)
	fmt.Printf("runs per line: %d\n\n", n)
	var r reporter
	for _, st := range steps(env, sock, client, minimal) {
		if err := r.report(n, st.name, st.minimal, st.f); err != nil {
			return err
		}
	}
	return nil
}

// buildBinaries returns binDir, or when it is empty builds askuserd,
// askuser-client and minimal under root and returns where they went.
func buildBinaries(root, binDir string, static bool) (string, error) {
	if binDir != "" {
		return binDir, nil
	}
	binDir = filepath.Join(root, "bin")
	build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/askuserd", "./cmd/askuser-client", "./bench/clientlatency/minimal")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if static {
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building (run from the module root): %w", err)
	}
	return binDir, nil
}

// startDaemon runs `askuserd serve` with its XDG dirs under root and
// waits until it answers; env is the environment that reaches it.
func startDaemon(root, binDir string) (env []string, sock string, stop func(), err error) {
	env = append(os.Environ(),
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"ASKUSER_SOCKET=")
	for _, d := range []string{"run", "state", "config"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			return nil, "", nil, err
		}
	}
	sock = filepath.Join(root, "run", "askuser", "askuserd.sock")

	daemon := exec.Command(filepath.Join(binDir, "askuserd"), "serve", "--log-level", "warn")
	daemon.SysProcAttr = proc.DiesWithUs()
	daemon.Env = env
	daemon.Stderr = os.Stderr
	if err := daemon.Start(); err != nil {
		return nil, "", nil, err
	}
	stop = func() {
		_ = daemon.Process.Signal(os.Interrupt)
		_ = daemon.Wait()
	}
	if err := waitForSocket(sock); err != nil {
		stop()
		return nil, "", nil, err
	}
	return env, sock, stop, nil
}

func printSizes(static bool, bins ...string) {
	linking := "with cgo, as go build builds them"
	if static {
		linking = "static, CGO_ENABLED=0"
	}
	for _, b := range bins {
		if fi, err := os.Stat(b); err == nil {
			fmt.Printf("%-14s %5.1f MB (%s)\n", filepath.Base(b), float64(fi.Size())/(1<<20), linking)
		}
	}
}

// step is one line of the report: what runs n times.
type step struct {
	name    string
	minimal bool // the baseline of the askuser-client line after it
	f       func() error
}

func steps(env []string, sock, client, minimal string) []step {
	return []step{
		{"exec /bin/true (process floor)", false, runProc(env, "/bin/true")},
		{"in process: dial, status, one line", false, func() error { return oneLine(sock) }},
		{"in process: dial, ask, read the answer", false, func() error { return rawAsk(sock) }},
		{"minimal noop (start and exit)", true, runProc(env, minimal, "noop")},
		{"askuser-client schema (no socket)", false, runProc(env, client, "schema")},
		{"minimal status", true, runProc(env, minimal, "status", sock)},
		{"askuser-client status", false, runProc(env, client, "status")},
		{"minimal list", true, runProc(env, minimal, "list", sock)},
		{"askuser-client list", false, runProc(env, client, "list")},
		{"minimal ask, answered at once", true, runProc(env, minimal, "ask", sock)},
		{"askuser-client ask, answered at once", false, func() error { return clientAsk(env, client) }},
	}
}

// runProc runs bin with args and env, and fails when it does.
func runProc(env []string, bin string, args ...string) func() error {
	return func() error {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %v: %v: %s", filepath.Base(bin), args, err, out)
		}
		return nil
	}
}

// clientAsk runs `askuser-client ask` and checks it was answered.
func clientAsk(env []string, client string) error {
	cmd := exec.Command(client, "ask", "--question", "Proceed?", "--option", "Yes", "--option", "No", "--no-autostart")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	var r socketproto.Response
	if err := json.Unmarshal(out, &r); err != nil || !r.Answered {
		return fmt.Errorf("unexpected result %s", out)
	}
	return nil
}

// reporter prints one line per step. A minimal line sets the baseline of
// the askuser-client line after it, which shows the ratio to it.
type reporter struct{ baseline time.Duration }

func (r *reporter) report(n int, name string, minimal bool, f func() error) error {
	d, err := measure(n, f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	ratio := ""
	if !minimal && r.baseline > 0 {
		ratio = fmt.Sprintf("  %.2f× minimal", float64(d[0])/float64(r.baseline))
	}
	fmt.Printf("%-44s p50 %8s  p90 %8s  p99 %8s%s\n", name, d[0], d[1], d[2], ratio)
	r.baseline = 0
	if minimal {
		r.baseline = d[0]
	}
	return nil
}

func waitForSocket(sock string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := socketproto.Dial(sock, 0); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("askuserd did not answer on %s", sock)
}

// startAnswerer subscribes as watch and answers each new request with "1"
// (its first option) at once, over a second connection.
func startAnswerer(sock string) (stop func(), err error) {
	w, err := socketproto.Dial(sock, 0)
	if err != nil {
		return nil, err
	}
	a, err := socketproto.Dial(sock, 0)
	if err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		return nil, err
	}
	go func() { // drain the answer connection's ok replies
		for {
			if _, err := a.Recv(); err != nil {
				return
			}
		}
	}()
	go func() {
		for {
			m, err := w.Recv()
			if err != nil {
				return
			}
			if ra, ok := m.(socketproto.RequestAdded); ok {
				_ = a.Send(socketproto.AnswerRequest{RequestID: ra.Request.RequestID,
					Answers: []json.RawMessage{json.RawMessage(`"1"`)}, Via: socketproto.ViaCLI})
			}
		}
	}()
	return func() { w.Close(); a.Close() }, nil
}

func oneLine(sock string) error {
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Send(socketproto.StatusRequest{}); err != nil {
		return err
	}
	_, err = c.Recv()
	return err
}

func rawAsk(sock string) error {
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		return err
	}
	defer c.Close()
	req := socketproto.AskUserRequest{Request: socketproto.Request{Questions: []socketproto.Question{
		{Question: "Proceed?", Options: []socketproto.Option{{Label: "Yes"}, {Label: "No"}}}}}}
	if err := c.Send(req); err != nil {
		return err
	}
	for {
		m, err := c.Recv()
		if err != nil {
			return err
		}
		switch m := m.(type) {
		case socketproto.Response:
			return nil
		case *socketproto.Error:
			return m
		}
	}
}

// measure runs f n times (after a few warm-up runs) and returns p50, p90, p99.
func measure(n int, f func() error) ([3]time.Duration, error) {
	for range 5 {
		if err := f(); err != nil {
			return [3]time.Duration{}, err
		}
	}
	ds := make([]time.Duration, n)
	for i := range ds {
		t0 := time.Now()
		if err := f(); err != nil {
			return [3]time.Duration{}, err
		}
		ds[i] = time.Since(t0)
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[min(int(p*float64(n)), n-1)].Round(10 * time.Microsecond) }
	return [3]time.Duration{q(0.50), q(0.90), q(0.99)}, nil
}
