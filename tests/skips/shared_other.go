//go:build !linux

package skips

import "os"

// sharedStderr needs pidfd_getfd(2), which only Linux has.
func sharedStderr(int) *os.File { return nil }
