// Package web holds the web pane's end-to-end tests and benchmarks: the real
// `askuserd web` and daemon, driven over HTTP and in headless Chromium.
package web

import (
	"os"
	"testing"

	"askuser/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m, "askuser/tests/web")) }
