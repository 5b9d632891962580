package proc

import (
	"os"
	"runtime"
	"testing"
)

func TestStatusKB(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has /proc/PID/status")
	}
	for _, field := range []string{"VmRSS", "VmHWM", "VmPeak"} {
		kb, err := StatusKB(os.Getpid(), field)
		if err != nil || kb <= 0 {
			t.Errorf("StatusKB(self, %q) = %d, %v; want a positive size", field, kb, err)
		}
	}
	if kb, err := StatusKB(os.Getpid(), "NoSuchField"); err == nil {
		t.Errorf("StatusKB(self, NoSuchField) = %d, want an error", kb)
	}
}
