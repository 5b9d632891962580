package acpproxy

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"askuser/socketproto"
)

// Whatever a line holds, the relay passes it on byte for byte and never
// fails on it: one line from the editor, then one from the agent, to a
// relay whose askuser never answers.
//
//	go test -run '^$' -fuzz FuzzRelayLines ./cmd/internal/acpproxy
func FuzzRelayLines(f *testing.F) {
	b, err := os.ReadFile("testdata/session.txt")
	if err != nil {
		f.Fatal(err)
	}
	var editor, agent []string
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "e "):
			editor = append(editor, l[2:]+"\n")
		case strings.HasPrefix(l, "a "):
			agent = append(agent, l[2:]+"\n")
		}
	}
	for i := range min(len(editor), len(agent)) {
		f.Add([]byte(editor[i]), []byte(agent[i]))
	}
	f.Add([]byte(`{"id":{"x":1},"method":"session/prompt","params":[]}`), []byte(`{"id":{"x":1},"result":null}`))
	f.Fuzz(func(t *testing.T, fromEditor, fromAgent []byte) {
		toAgent, toEditor := &lines{}, &lines{}
		r := New(Options{ToAgent: toAgent, ToEditor: toEditor, Ask: (&asked{position: 1}).ask, Limits: socketproto.DefaultLimits()})
		r.FromEditor(fromEditor)
		r.FromAgent(fromAgent)
		r.Stop()
		if got := toAgent.String(); got != string(fromEditor) {
			t.Errorf("the agent got %q, want %q", got, fromEditor)
		}
		if got := toEditor.String(); !bytes.Equal([]byte(got), fromAgent) {
			t.Errorf("the editor got %q, want %q", got, fromAgent)
		}
	})
}
