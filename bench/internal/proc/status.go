package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// StatusKB reads one kB field of /proc/PID/status, such as "VmRSS" or
// "VmHWM" (the peak resident set since the process began). Only Linux has
// the file; elsewhere, and once the process is gone, it returns an error.
func StatusKB(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(l, ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		return strconv.Atoi(f[0])
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}
