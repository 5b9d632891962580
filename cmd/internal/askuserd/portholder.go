package askuserd

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// portHolder says which process listens on addr's TCP port, for the error
// of a second `askuserd web` on a port in use: "pid 4121 (askuserd web)",
// or, when the listener is found but not its process (another user's),
// "a process of another user". "" when it cannot be told (not Linux, no
// /proc, or nothing listens there any more).
func portHolder(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return ""
	}
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		for _, ino := range listeningInodes(table, port) {
			inodes[ino] = true
		}
	}
	if len(inodes) == 0 {
		return ""
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, proc := range procs {
		fds, err := os.ReadDir(filepath.Join(proc, "fd"))
		if err != nil {
			continue // another user's process
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(proc, "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				return "pid " + filepath.Base(proc) + commandOf(proc)
			}
		}
	}
	return "a process of another user"
}

// listeningInodes are the socket inodes of the listeners on port in a
// /proc/net/tcp table (state 0A is LISTEN).
func listeningInodes(table string, port int) []string {
	f, err := os.Open(table)
	if err != nil {
		return nil
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], want) {
			continue
		}
		out = append(out, fields[9])
	}
	return out
}

// commandOf is " (the command line)" of a process, shortened; "" when
// unreadable.
func commandOf(proc string) string {
	b, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil || len(b) == 0 {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	args[0] = filepath.Base(args[0])
	cmd := strings.Join(args, " ")
	if r := []rune(cmd); len(r) > 80 {
		cmd = string(r[:79]) + "…"
	}
	return " (" + cmd + ")"
}
