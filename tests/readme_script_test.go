package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/tests/testdir"
	"askuser/tests/testenv"
)

// readmeShellScript is the sh block under "### A shell script" in the README,
// exactly as a user would copy it.
func readmeShellScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "### A shell script")
	if !ok {
		t.Fatal(`README.md has no "### A shell script" section`)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatal("the shell-script section has no ```sh block")
	}
	script, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the shell-script section's block is not closed")
	}
	return script
}

// The README's shell script, run as printed, takes the branch the user
// chose: with a note attached, with another option, and when declined.
func TestReadmeShellScript(t *testing.T) {
	script := readmeShellScript(t)
	cases := []struct {
		name    string
		answer  []string // askuser-client answer's arguments after the id; nil declines
		wantOut string
		wantErr string
	}{
		{"yes with a note", []string{"--answers", `[{"selected":["Yes, deploy"],"notes":"after lunch"}]`}, "deploying…\n", ""},
		{"yes", []string{"Yes, deploy"}, "deploying…\n", ""},
		{"no", []string{"2"}, "not deploying (No, wait)\n", ""},
		{"declined", nil, "", "The user declined; not deploying.\n"},
	}
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	path := filepath.Join(e.Root, "deploy.sh")
	testdir.WriteExecutable(t, path, []byte(script), 0o700)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("sh", path)
			cmd.Env = e.Environ()
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			id := testenv.NextAdded(t, w).RequestID
			if c.answer == nil {
				mustClient(t, e, "", "cancel", id)
			} else {
				mustClient(t, e, "", append([]string{"answer", id}, c.answer...)...)
			}
			if code := testenv.Finish(t, cmd); code != 0 {
				t.Fatalf("the script exited %d; stderr: %s", code, errb.String())
			}
			if out.String() != c.wantOut || errb.String() != c.wantErr {
				t.Errorf("stdout %q, stderr %q; want %q and %q", out.String(), errb.String(), c.wantOut, c.wantErr)
			}
		})
	}
}
