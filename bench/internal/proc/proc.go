// Package proc holds what the benchmark programs need of the operating
// system that differs between systems: children that die with their bench,
// and a file-descriptor limit high enough for 10,000 connections.
package proc

import "syscall"

// RaiseFileLimit lifts the soft limit on open files to n (at most the hard
// limit).
func RaiseFileLimit(n int) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return
	}
	if raise(&lim, n) {
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}
