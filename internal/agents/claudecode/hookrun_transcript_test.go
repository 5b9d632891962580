package claudecode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/internal/agents/claudecode"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// A permission prompt answered in interactive Claude Code's own dialog
// first: the hook sees the call's result in the session's transcript and
// withdraws askuser's copy. The transcript lines are as Claude Code 2.1.330
// wrote them (testdata/transcript-*.jsonl; paths and ids of an
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

// withdrawnBy waits for the request's request_resolved and returns how
// the hook said it was settled.
func withdrawnBy(t *testing.T, watch func(string) socketproto.Message, id string) string {
	t.Helper()
	for {
		r := watch("request_resolved").(socketproto.RequestResolved)
		if r.RequestID != id {
			continue
		}
		if r.Outcome != socketproto.OutcomeWithdrawn {
			t.Fatalf("request %s was %s, want withdrawn", id, r.Outcome)
		}
		return r.Settled
	}
}

func TestClaudeHookPermissionAnsweredInClaudeCode(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	call := string(claudeTestdata(t, "transcript-bash-call.jsonl"))
	result := string(claudeTestdata(t, "transcript-bash-allowed-in-dialog.jsonl"))
	past := time.Now().Add(-time.Minute)
	later := func(line string) func() string { return func() string { return claudecode.Stamped(line, time.Now()) } }
	now := func(line string) func() string { return func() string { return line } }

	// An earlier identical call, answered, is not this one.
	earlier := claudecode.Twin(call) + claudecode.Stamped(claudecode.Refused(claudecode.Twin(result)), past)

	cases := []struct {
		name   string
		before string          // the transcript when the hook starts
		during []func() string // what is written while it asks, write by write
		want   string          // how the hook says it was settled
	}{
		{"the call written before the hook asks", earlier + call, []func() string{later(result)}, "allowed in Claude Code's own dialog"},
		{"the call written while it asks", earlier, []func() string{now(call), later(result)}, "allowed in Claude Code's own dialog"},
		{"refused in the dialog", call, []func() string{later(claudecode.Refused(result))}, "denied in Claude Code's own dialog"},
		{"the result's line written in two parts", call, []func() string{
			func() string { return claudecode.Stamped(result, time.Now())[:40] },
			func() string { return claudecode.Stamped(result, time.Now())[40:] }}, "allowed in Claude Code's own dialog"},
		// A twin decided before this hook began, its result reaching the
		// file only now, is not this call.
		{"a twin's late result", claudecode.Twin(call) + call, []func() string{now(claudecode.Stamped(claudecode.Refused(claudecode.Twin(result)), past)), later(result)}, "allowed in Claude Code's own dialog"},
		// Two identical prompts up at once: the newest call is this one.
		{"a twin's result while both wait", claudecode.Twin(call) + call, []func() string{later(claudecode.Refused(claudecode.Twin(result))), later(result)}, "allowed in Claude Code's own dialog"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			transcript := filepath.Join(t.TempDir(), "session.jsonl")
			appendFile(t, transcript, []byte(c.before))
			ch := runHookAsync(sock, hookInputWithTranscript(t, transcript))
			p := watch("request_added").(socketproto.RequestAdded).Request
			for _, part := range c.during {
				appendFile(t, transcript, []byte(part()))
			}
			if got := withdrawnBy(t, watch, p.RequestID); got != c.want {
				t.Errorf("settled %q, want %q", got, c.want)
			}
			r := awaitHook(t, ch)
			if r.Stdout != "" || !strings.Contains(r.Stderr, c.want) {
				t.Errorf("stdout %q, stderr %q; want nothing printed", r.Stdout, r.Stderr)
			}
		})
	}

	t.Run("answered in askuser first: the decision, transcript or not", func(t *testing.T) {
		transcript := filepath.Join(t.TempDir(), "session.jsonl")
		appendFile(t, transcript, []byte(call))
		ch := runHookAsync(sock, hookInputWithTranscript(t, transcript))
		p := watch("request_added").(socketproto.RequestAdded).Request
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
			Answers: []json.RawMessage{testdaemon.Seen(p.Questions[0], json.RawMessage(`"Allow"`))}})
		if out := readPermissionOut(t, awaitHook(t, ch).Stdout); out.HookSpecificOutput.Decision.Behavior != "allow" {
			t.Errorf("decision %+v", out.HookSpecificOutput.Decision)
		}
	})
}

// Claude Code's session record says the dialog was answered long before a
// long command's result: askuser's copy goes at once, saying so.
func TestClaudeHookPermissionSessionRecord(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	call := string(claudeTestdata(t, "transcript-bash-call.jsonl"))
	result := string(claudeTestdata(t, "transcript-bash-allowed-in-dialog.jsonl"))
	var in map[string]any
	if err := json.Unmarshal(claudeTestdata(t, "permissionrequest-bash.json"), &in); err != nil {
		t.Fatal(err)
	}
	record := func(status, waitingFor string) []byte {
		b, _ := json.Marshal(map[string]any{"pid": 4121, "sessionId": in["session_id"], "kind": "interactive",
			"status": status, "waitingFor": waitingFor})
		return b
	}
	cases := []struct {
		name  string
		after string // the status the record moves to
		write string // the transcript's line, written then
		want  string
	}{
		{"allowed, the command still running", "busy", "", "allowed in Claude Code's own dialog, the call running"},
		{"refused", "idle", claudecode.Refused(result), "denied in Claude Code's own dialog"},
		{"allowed, the command done", "busy", result, "allowed in Claude Code's own dialog"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			config := t.TempDir()
			transcript := filepath.Join(config, "projects", "-home-you-app", "s.jsonl")
			sessions := filepath.Join(config, "sessions")
			for _, d := range []string{filepath.Dir(transcript), sessions} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			appendFile(t, transcript, []byte(call))
			// Another session's record is not this one's.
			if err := os.WriteFile(filepath.Join(sessions, "99.json"), []byte(`{"sessionId":"other","status":"idle"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			rec := filepath.Join(sessions, "4121.json")
			if err := os.WriteFile(rec, record("waiting", "permission prompt"), 0o600); err != nil {
				t.Fatal(err)
			}
			in["transcript_path"] = transcript
			input, _ := json.Marshal(in)
			ch := runHookAsync(sock, input)
			p := watch("request_added").(socketproto.RequestAdded).Request
			time.Sleep(3 * claudecode.SettledPoll) // the hook sees the dialog up
			if err := os.WriteFile(rec, record(c.after, ""), 0o600); err != nil {
				t.Fatal(err)
			}
			if c.write != "" {
				appendFile(t, transcript, []byte(claudecode.Stamped(c.write, time.Now())))
			}
			if got := withdrawnBy(t, watch, p.RequestID); got != c.want {
				t.Errorf("settled %q, want %q", got, c.want)
			}
			if r := awaitHook(t, ch); r.Stdout != "" {
				t.Errorf("stdout %q", r.Stdout)
			}
		})
	}
}
