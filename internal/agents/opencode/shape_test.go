package opencode

import "testing"

// A bash permission is remembered only as one pattern, the command, which
// its metadata may repeat but not contradict.
func TestBashCommand(t *testing.T) {
	if cmd, err := bashCommand([]byte(`{"permission": "bash", "patterns": ["go test ./..."], "metadata": {"command": "go test ./..."}}`)); err != nil || cmd != "go test ./..." {
		t.Errorf("bashCommand = %q, %v; want the command", cmd, err)
	}
	for _, in := range []string{
		`{"permission": "bash", "patterns": ["ls", "rm x"], "metadata": {}}`,
		`{"permission": "bash", "patterns": ["ls"], "metadata": {"command": "rm x"}}`,
		`{"permission": "edit", "patterns": ["ls"], "metadata": {}}`,
		`{"permission": "bash", "patterns": ["ls"], "metadata": {}, "always": ["*"]}`,
	} {
		if _, err := bashCommand([]byte(in)); err == nil {
			t.Errorf("opencode input %s was remembered", in)
		}
	}
}
