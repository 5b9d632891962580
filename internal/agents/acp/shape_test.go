package acp

import "testing"

// An execute call's input is remembered only as one command and at most its
// description.
func TestExecuteCommand(t *testing.T) {
	for _, in := range []string{`{"command": "go test ./..."}`, `{"command": "go test ./...", "description": "Run the tests"}`} {
		if cmd, err := executeCommand([]byte(in)); err != nil || cmd != "go test ./..." {
			t.Errorf("executeCommand(%s) = %q, %v; want the command", in, cmd, err)
		}
	}
	for _, in := range []string{`{"command": "ls", "cwd": "/"}`, `{"command": ["ls"]}`, `{"command": "ls", "timeout": 5}`, `{"description": "ls"}`, `{"command": "ls"} {}`} {
		if _, err := executeCommand([]byte(in)); err == nil {
			t.Errorf("acp input %s was remembered", in)
		}
	}
}
