package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A Go crash is hundreds of lines; what is shown of it must be why the
// runtime died and where, not the other goroutines.
func TestLogTailKeepsWhyAndWhere(t *testing.T) {
	var l logTail
	fmt.Fprintln(&l, `time=... level=WARN msg="disconnected a client that does not read"`)
	fmt.Fprint(&l, "runtime: out of memory: cannot allocate 4194304-byte block (292716544 in use)\nfatal error: out of memory\n\n")
	fmt.Fprint(&l, "goroutine 24 gp=0x1 m=6 [running]:\nruntime.throw({0x6e3d2e?, 0x6f?})\n\t/usr/local/go/src/runtime/panic.go:1229\n")
	for i := range 50 {
		// Written in pieces, as a pipe delivers it.
		fmt.Fprintf(&l, "\ngoroutine %d gp=0x2 m=nil [select]:\nsome.func()\n\tfile.go:%d", 100+i, i)
	}
	got := l.last()
	for _, want := range []string{"runtime: out of memory: cannot allocate 4194304-byte block (292716544 in use)",
		"fatal error: out of memory", "goroutine 24 gp=0x1 m=6 [running]:", "runtime.throw({0x6e3d2e?, 0x6f?})"} {
		if !slices.Contains(got, want) {
			t.Errorf("kept lines lack %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "[select]") }) {
		t.Errorf("kept lines include goroutines that were not running:\n%s", strings.Join(got, "\n"))
	}
	if n, first := l.summary(); !strings.Contains(first, "level=WARN") || n < 100 {
		t.Errorf("summary = %d, %q; want every line counted and the first one", n, first)
	}
}
