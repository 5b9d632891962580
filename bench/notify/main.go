// Command notify measures askuserd's Web Push, the real binary in its own
// process, against a push service on loopback that decrypts every message
// (daemon/notify/webpush/pushtest):
//
//		go run ./bench/notify [-n 200] [-devices 32]
//
//	  - asked → pushed: from the ask_user_request written to the moment the
//	    push service has the encrypted message, p50 and p99; once with
//	    notify.grace = "0s" (the pipeline itself: policy, encryption, VAPID
//	    signature, HTTP on loopback) and once with the default grace of 1 s
//	    (what a user sees: the grace is on purpose, so that prompts settled at
//	    once never ring).
//	  - answered → closed: from the answer written to the closing push at the
//	    push service.
//	  - RSS per device: the daemon's VmRSS with one device subscribed and with
//	    -devices, after a push to each.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"askuser/bench/internal/proc"
	"askuser/daemon/notify/webpush/pushtest"
)

func main() {
	n := flag.Int("n", 200, "questions per latency measurement")
	devices := flag.Int("devices", 32, "devices subscribed for the RSS measurement (askuserd keeps at most 32)")
	flag.Parse()
	if err := run(*n, *devices); err != nil {
		fmt.Fprintln(os.Stderr, "bench/notify:", err)
		os.Exit(1)
	}
}

type daemonProc struct {
	cmd  *exec.Cmd
	sock string
	conn net.Conn
	in   *bufio.Reader
}

func startDaemon(bin, root, grace string) (*daemonProc, error) {
	for _, d := range []string{"run", "state", "config/askuser"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			return nil, err
		}
	}
	cfg := fmt.Sprintf("[notify]\ngrace = %q\n[web]\npush_insecure_loopback = true\n", grace)
	if err := os.WriteFile(filepath.Join(root, "config", "askuser", "config.toml"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--log-level", "warn")
	cmd.SysProcAttr = proc.DiesWithUs()
	cmd.Env = append(os.Environ(),
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"ASKUSER_SOCKET=")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &daemonProc{cmd: cmd, sock: filepath.Join(root, "run", "askuser", "askuserd.sock")}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("unix", d.sock); err == nil {
			d.conn, d.in = c, bufio.NewReader(c)
			return d, nil
		}
	}
	d.stop()
	return nil, fmt.Errorf("askuserd never listened on %s", d.sock)
}

func (d *daemonProc) stop() {
	if d.conn != nil {
		d.conn.Close()
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
	}
}

// call sends one line and reads one reply.
func (d *daemonProc) call(line string) (map[string]any, error) {
	if _, err := d.conn.Write([]byte(line + "\n")); err != nil {
		return nil, err
	}
	reply, err := d.in.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(reply, &m); err != nil {
		return nil, err
	}
	if m["type"] == "error" {
		return m, fmt.Errorf("askuserd: %v", m["message"])
	}
	return m, nil
}

func (d *daemonProc) subscribe(srv *pushtest.Server, name string) error {
	_, err := d.call(`{"type":"push_subscribe","subscription":` + srv.Subscription(srv.NewDevice(name)) + `}`)
	return err
}

func run(n, devices int) error {
	root, err := os.MkdirTemp("", "au-bn-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	bin := filepath.Join(root, "askuserd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/askuserd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building askuserd (run from the module root): %w", err)
	}
	for i, grace := range []string{"0s", "1s"} {
		rounds := n
		if grace != "0s" {
			rounds = min(n, 20) // each round waits out the grace
		}
		if err := latency(bin, filepath.Join(root, strconv.Itoa(i)), grace, rounds); err != nil {
			return err
		}
	}
	return rss(bin, filepath.Join(root, "rss"), devices)
}

func latency(bin, root, grace string, n int) error {
	srv := pushtest.NewServer()
	defer srv.Close()
	d, err := startDaemon(bin, root, grace)
	if err != nil {
		return err
	}
	defer d.stop()
	if err := d.subscribe(srv, "phone"); err != nil {
		return err
	}
	var asked, closed []time.Duration
	for i := range n {
		id := "b" + strconv.Itoa(i)
		start := time.Now()
		if _, err := d.call(`{"type":"ask_user_request","requestId":"` + id + `","wait":false,"questions":[{"question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]}]}`); err != nil {
			return err
		}
		got, err := srv.WaitFor(2*i+1, 10*time.Second)
		if err != nil {
			return err
		}
		asked = append(asked, got[2*i].At.Sub(start))
		start = time.Now()
		if _, err := d.call(`{"type":"answer","requestId":"` + id + `","answers":["1"]}`); err != nil {
			return err
		}
		got, err = srv.WaitFor(2*i+2, 10*time.Second)
		if err != nil {
			return err
		}
		closed = append(closed, got[2*i+1].At.Sub(start))
		for _, m := range got[2*i:] {
			if m.Err != nil {
				return fmt.Errorf("a push did not decrypt: %v", m.Err)
			}
		}
	}
	fmt.Printf("notify.grace %-3s  asked → push at the push service:   p50 %8s  p99 %8s  (n=%d)\n", grace, pct(asked, 50), pct(asked, 99), n)
	fmt.Printf("notify.grace %-3s  answered → closing push:           p50 %8s  p99 %8s\n", grace, pct(closed, 50), pct(closed, 99))
	return nil
}

func rss(bin, root string, devices int) error {
	srv := pushtest.NewServer()
	defer srv.Close()
	d, err := startDaemon(bin, root, "0s")
	if err != nil {
		return err
	}
	defer d.stop()
	round := func(i, want int) (int, error) {
		id := "r" + strconv.Itoa(i)
		if _, err := d.call(`{"type":"ask_user_request","requestId":"` + id + `","wait":false,"questions":[{"question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]}]}`); err != nil {
			return 0, err
		}
		if _, err := srv.WaitFor(want, 10*time.Second); err != nil {
			return 0, err
		}
		time.Sleep(200 * time.Millisecond) // let the senders' goroutines finish
		return proc.StatusKB(d.cmd.Process.Pid, "VmRSS")
	}
	if err := d.subscribe(srv, "dev0"); err != nil {
		return err
	}
	one, err := round(0, 1)
	if err != nil {
		return err
	}
	for i := 1; i < devices; i++ {
		if err := d.subscribe(srv, "dev"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	all, err := round(1, 1+devices)
	if err != nil {
		return err
	}
	fmt.Printf("RSS: %d kB with 1 device, %d kB with %d: %.1f kB per further device\n", one, all, devices, float64(all-one)/float64(devices-1))
	return nil
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s) - 1) * p / 100
	return s[i].Round(10 * time.Microsecond)
}
