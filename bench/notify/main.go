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
	"time"

	"askuser/bench/internal/benchdaemon"
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

// daemonProc is the measured askuserd, and the bench's own connection to it.
type daemonProc struct {
	*benchdaemon.Daemon
	conn net.Conn
	in   *bufio.Reader
}

func startDaemon(bin, root, grace string) (*daemonProc, error) {
	bd, err := benchdaemon.Start(bin, root, fmt.Sprintf("[notify]\ngrace = %q\n[web]\npush_insecure_loopback = true\npush_contact = \"mailto:askuser-bench@example.com\"\n", grace))
	if err != nil {
		return nil, err
	}
	c, err := net.Dial("unix", bd.Sock)
	if err != nil {
		bd.Stop()
		return nil, err
	}
	return &daemonProc{Daemon: bd, conn: c, in: bufio.NewReader(c)}, nil
}

func (d *daemonProc) stop() {
	d.conn.Close()
	d.Stop()
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
		return proc.StatusKB(d.Cmd.Process.Pid, "VmRSS")
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
