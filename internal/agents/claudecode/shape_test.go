package claudecode

import "testing"

// A Bash input with a key that could change what runs is none a rule covers.
func TestBashCommand(t *testing.T) {
	if cmd, err := BashCommand([]byte(`{"command": "go test ./...", "description": "Run the tests", "timeout": 60000}`)); err != nil || cmd != "go test ./..." {
		t.Errorf("BashCommand = %q, %v; want the command", cmd, err)
	}
	for _, in := range []string{`{"command": "ls", "dangerouslyDisableSandbox": true}`, `{"command": "ls", "cwd": "/"}`, `{"command": ["ls"]}`, `{"command": ""}`, `["ls"]`, `{"command": "ls"} {}`} {
		if _, err := BashCommand([]byte(in)); err == nil {
			t.Errorf("Bash input %s was remembered", in)
		}
	}
}
