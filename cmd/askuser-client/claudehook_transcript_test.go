package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// A permission prompt answered in interactive Claude Code's own dialog
// first: the hook sees the call's result in the session's transcript and
// withdraws askuser's copy. The transcript lines are as Claude Code 2.1.330
// wrote them (testdata/claude/transcript-*.jsonl; paths and ids of an
// example): the prompt and the tool call, already written while the dialog
// was up, then the result once the user allowed it there.

// hookInputWithTranscript is the recorded PermissionRequest input naming
// transcript as the session's transcript.
func hookInputWithTranscript(t *testing.T, transcript string) []byte {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal(claudeTestdata(t, "permissionrequest-bash.json"), &in); err != nil {
		t.Fatal(err)
	}
	in["transcript_path"] = transcript
	b, _ := json.Marshal(in)
	return b
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// withdrawnBy waits for the request's request_resolved.
func withdrawnBy(t *testing.T, watch func(string) socketproto.Message, id string) {
	t.Helper()
	for {
		r := watch("request_resolved").(socketproto.RequestResolved)
		if r.RequestID != id {
			continue
		}
		if r.Outcome != socketproto.OutcomeWithdrawn {
			t.Fatalf("request %s was %s, want withdrawn", id, r.Outcome)
		}
		return
	}
}

func TestClaudeHookPermissionAnsweredInClaudeCode(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	call := claudeTestdata(t, "transcript-bash-call.jsonl")
	result := claudeTestdata(t, "transcript-bash-allowed-in-dialog.jsonl")

	// An earlier identical call, answered, is not this one.
	earlier := strings.ReplaceAll(string(call), "toolu_askuser_00", "toolu_earlier") +
		strings.ReplaceAll(string(result), "toolu_askuser_00", "toolu_earlier")

	cases := []struct {
		name   string
		before string   // the transcript when the hook starts
		during []string // what is written while it asks, write by write
	}{
		{"the call written before the hook asks", earlier + string(call), []string{string(result)}},
		{"the call written while it asks", earlier, []string{string(call), string(result)}},
		{"the result's line written in two parts", string(call), []string{string(result)[:40], string(result)[40:]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			transcript := filepath.Join(t.TempDir(), "session.jsonl")
			appendFile(t, transcript, []byte(c.before))
			ch := runHookAsync(sock, hookInputWithTranscript(t, transcript))
			p := watch("request_added").(socketproto.RequestAdded).Request
			for _, part := range c.during {
				appendFile(t, transcript, []byte(part))
			}
			withdrawnBy(t, watch, p.RequestID)
			r := awaitHook(t, ch)
			if r.stdout != "" || !strings.Contains(r.stderr, "answered in Claude Code's own dialog") {
				t.Errorf("stdout %q, stderr %q; want nothing printed", r.stdout, r.stderr)
			}
		})
	}

	t.Run("answered in askuser first: the decision, transcript or not", func(t *testing.T) {
		transcript := filepath.Join(t.TempDir(), "session.jsonl")
		appendFile(t, transcript, call)
		ch := runHookAsync(sock, hookInputWithTranscript(t, transcript))
		p := watch("request_added").(socketproto.RequestAdded).Request
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
			Answers: []json.RawMessage{testdaemon.Seen(p.Questions[0], json.RawMessage(`"Allow"`))}})
		if out := readPermissionOut(t, awaitHook(t, ch).stdout); out.HookSpecificOutput.Decision.Behavior != "allow" {
			t.Errorf("decision %+v", out.HookSpecificOutput.Decision)
		}
	})
}
