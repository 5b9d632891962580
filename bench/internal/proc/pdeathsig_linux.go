package proc

import "syscall"

// DiesWithUs makes a child the kernel kills when this bench dies, so that a
// bench cut short (Ctrl-C, a closed pipe) leaves no askuserd behind.
func DiesWithUs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
