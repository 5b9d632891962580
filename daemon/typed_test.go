package daemon

import (
	"os"
	"strings"
	"testing"

	"askuser/tests/testdaemon"
)

// typedAsk asks a port (integer, bounded), a yes/no and an optional email.
const typedAsk = `{"type":"ask_user_request","requestId":"t1","questions":[` +
	`{"question":"Port?","input":{"type":"integer","minimum":1024,"maximum":65535}},` +
	`{"question":"Enable TLS?","input":{"type":"boolean"}},` +
	`{"question":"Contact?","input":{"type":"string","format":"email","required":false}}]}` + "\n"

// Typed answers through the real socket (docs/contract.md §3 "Typed answers"): an
// answer that breaks its rule is refused with invalid_answer naming the
// question and the rule, from any surface; the one that keeps it reaches the
// agent with its JSON type, an optional question left empty as null.
func TestTypedAnswers(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(typedAsk)
	a.Expect("ask_user_queued requestId=t1")

	cli := testdaemon.DialRaw(t, sock)
	refusals := []struct{ answers, field, msg string }{
		{`["80", "yes", ""]`, "answers[0]", "80 is less than 1024 (rule: a whole number from 1024 to 65535)"},
		{`["8080", "perhaps", ""]`, "answers[1]", "neither Yes nor No (rule: Yes or No)"},
		{`["8080", true, "nobody"]`, "answers[2]", "not an email address"},
		{`[8080.5, true, null]`, "answers[0]", "not a whole number"},
	}
	for _, r := range refusals {
		cli.Send(`{"type":"answer","requestId":"t1","via":"cli","answers":` + r.answers + "}\n")
		m := cli.Expect("error code=invalid_answer requestId=t1 field=" + r.field)
		if msg := testdaemon.Lookup(m, "message"); !strings.Contains(msg, r.msg) {
			t.Errorf("answers %s: message %q, want %q", r.answers, msg, r.msg)
		}
	}

	// A pane's draft may break the rule while it is being typed: kept.
	cli.Send(`{"type":"draft","requestId":"t1","index":0,"answer":"80","via":"pane"}` + "\n")
	cli.Expect("ok requestId=t1")

	cli.Send(`{"type":"answer","requestId":"t1","via":"cli","answers":["8443", "no", ""]}` + "\n")
	cli.Expect("ok requestId=t1")
	m := a.Expect("ask_user_response requestId=t1 answered=true")
	answers := m["answers"].([]any)
	if v, ok := answers[0].(map[string]any)["answer"].(float64); !ok || v != 8443 {
		t.Errorf("port answer %#v, want the number 8443", answers[0])
	}
	if v, ok := answers[1].(map[string]any)["answer"].(bool); !ok || v {
		t.Errorf("TLS answer %#v, want false", answers[1])
	}
	if v, present := answers[2].(map[string]any)["answer"]; !present || v != nil {
		t.Errorf("contact answer %#v, want null", answers[2])
	}
	if got := testdaemon.Lookup(m, "answersByQuestion.Enable TLS?"); got != "No" {
		t.Errorf("answersByQuestion: %q", got)
	}
}

// A bad schema is refused as a whole, naming the field.
func TestTypedSchemaRefused(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(`{"type":"ask_user_request","questions":[{"question":"N?","input":{"type":"integer","minimum":"one"}}]}` + "\n")
	a.Expect("error code=invalid_request field=questions[0].input.minimum")
	a.Send(`{"type":"ask_user_request","questions":[{"question":"N?","input":{"type":"integer","minimum":5,"maximum":1}}]}` + "\n")
	a.Expect("error code=invalid_request field=questions[0].input.minimum")
	a.Send(`{"type":"list"}` + "\n")
	a.Expect("list pending=[]")
}

// The pending file shows the rule, and a saved answer that breaks it is
// reported with its place in the file, and kept.
func TestTypedPendingFile(t *testing.T) {
	t.Parallel()
	d := testdaemon.Serve(t, runForTest, "", nil)
	w := testdaemon.DialRaw(t, d.Socket)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot")
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(`{"type":"ask_user_request","requestId":"t2","questions":[{"question":"Port?","input":{"type":"integer","minimum":1024}}]}` + "\n")
	a.Expect("ask_user_queued")
	text := eventually(t, d.PendingFile, func(s string) bool { return strings.Contains(s, `"t2"`) })
	if !strings.Contains(text, `"rule": "a whole number ≥ 1024"`) {
		t.Fatalf("no rule in the file:\n%s", text)
	}
	saved := strings.Replace(text, `"answer": null`, `"answer": 80`, 1)
	if err := os.WriteFile(d.PendingFile, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	// Both come, in either order: the report and the draft kept.
	var reported, kept bool
	for !reported || !kept {
		m := w.Recv()
		switch m["type"] {
		case "pending_file_error":
			if e := testdaemon.Lookup(m, "error"); !strings.Contains(e, "line ") || !strings.Contains(e, "80 is less than 1024") {
				t.Fatalf("pending_file_error %q", e)
			}
			reported = true
		case "request_updated":
			if got := testdaemon.Lookup(m, "request.draft.0"); got != "80" {
				t.Fatalf("draft %s, want the saved answer kept", got)
			}
			kept = true
		}
	}
	a.Quiet()
}
