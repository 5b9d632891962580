package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/tests/testenv"
)

// An installed askuser-client writes its own absolute path into an agent's
// settings, wherever it lives (here under the temporary directory), and
// says so: an agent that starts it with a reduced PATH still finds it.
func TestIntegrateWritesTheAbsolutePath(t *testing.T) {
	e := NewEnv(t)
	home := filepath.Join(e.Root, "home")
	cmd := exec.Command(testenv.Bin("askuser-client"), "integrate", "gemini", "--write")
	cmd.Env = append(e.Environ(), "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("integrate: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "the agent will run "+testenv.Bin("askuser-client")+" (this program's absolute path") {
		t.Errorf("integrate does not say what the agent will run:\n%s", out)
	}
	settings, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(settings), `"command": "`+testenv.Bin("askuser-client")+`"`) {
		t.Errorf("settings.json does not run %s:\n%s", testenv.Bin("askuser-client"), settings)
	}
}
