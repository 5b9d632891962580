// Package benchdaemon starts the askuserd a benchmark program measures: the
// built binary, `serve`, on a private XDG tree with a config of the
// benchmark's own, dying with the benchmark. It knows nothing of what is
// measured.
package benchdaemon

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"askuser/bench/internal/proc"
)

// Daemon is a running askuserd serve.
type Daemon struct {
	Cmd  *exec.Cmd
	Sock string // its socket
}

// Start runs bin serve with XDG_RUNTIME_DIR, XDG_STATE_HOME and
// XDG_CONFIG_HOME under root, config as its config.toml, and returns once
// its socket answers.
func Start(bin, root, config string) (*Daemon, error) {
	for _, d := range []string{"run", "state", "config/askuser"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(root, "config", "askuser", "config.toml"), []byte(config), 0o600); err != nil {
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
	d := &Daemon{Cmd: cmd, Sock: filepath.Join(root, "run", "askuser", "askuserd.sock")}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("unix", d.Sock); err == nil {
			c.Close()
			return d, nil
		}
	}
	d.Stop()
	return nil, fmt.Errorf("askuserd never listened on %s", d.Sock)
}

// Stop sends SIGTERM and waits; past 10 s it kills.
func (d *Daemon) Stop() {
	_ = d.Cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = d.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = d.Cmd.Process.Kill()
		<-done
	}
}
