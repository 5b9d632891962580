//go:build !linux

package proc

import "syscall"

// DiesWithUs: only Linux can have the kernel kill a child with its parent;
// elsewhere a bench cut short may leave its askuserd running.
func DiesWithUs() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
