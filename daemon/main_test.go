package daemon

import (
	"os"
	"testing"

	"askuser/tests/skips"
)

// TestMain says at the end which tests skipped and why (skips.Report).
func TestMain(m *testing.M) { os.Exit(skips.Main(m, "askuser/daemon")) }
