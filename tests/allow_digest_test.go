package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// allowQuestion is a permission prompt whose Allow approves a command that
// holds a bidi override: in a bidi-aware editor the raw character would
// make the command read differently from what runs.
var allowQuestion = socketproto.Question{Question: "Allow the agent to use Bash with the input shown?", Header: "Permission",
	Options: []socketproto.Option{
		{Label: "Allow", Preview: "{\n  \"command\": \"rm -rf ./tmp \u202e# only tmp\"\n}", ApprovesPreview: true},
		{Label: "Deny"},
	}}

// rawLine sends one line on a raw socket connection and reads one back.
func rawLine(t *testing.T, c net.Conn, r *bufio.Reader, line string) map[string]any {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(testenv.ClientWait))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	reply, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the reply to %s: %v", line, err)
	}
	var m map[string]any
	if err := json.Unmarshal(reply, &m); err != nil {
		t.Fatalf("reply %s: %v", reply, err)
	}
	return m
}

// docs/contract.md §4, §6 "Allow means seen": an answer over the raw socket
// that chooses Allow is refused without the digest of the preview the
// daemon holds, or with another one, and the refusal never says what it
// is; with the right one it is taken.
func TestRawSocketAllowNeedsThePreviewDigest(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	asker := pfAsk(t, e, "perm-1", allowQuestion)
	digest := socketproto.PreviewDigest(allowQuestion.Options[0].Preview)

	c, err := net.Dial("unix", e.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for _, tc := range []struct{ name, answer, says string }{
		{"label, no digest", `"Allow"`, `"Allow" approves everything in its preview`},
		{"number, no digest", `1`, `must name that preview as "previewDigest"`},
		{"object, no digest", `{"selected":["Allow"]}`, `must name that preview as "previewDigest"`},
		{"another preview's digest", `{"selected":["Allow"],"previewDigest":"` + socketproto.PreviewDigest("rm -rf ./tmp # only tmp") + `"}`, `is not the digest of "Allow"'s preview`},
	} {
		m := rawLine(t, c, r, `{"type":"answer","requestId":"perm-1","answers":[`+tc.answer+`],"via":"cli"}`)
		raw, _ := json.Marshal(m)
		msg, _ := m["message"].(string)
		if m["type"] != "error" || m["code"] != "invalid_answer" || m["field"] != "answers[0].previewDigest" || !strings.Contains(msg, tc.says) {
			t.Fatalf("%s: reply %s, want invalid_answer at answers[0].previewDigest saying %s", tc.name, raw, tc.says)
		}
		if strings.Contains(string(raw), digest) {
			t.Fatalf("%s: the refusal gives the digest away: %s", tc.name, raw)
		}
	}
	m := rawLine(t, c, r, `{"type":"answer","requestId":"perm-1","answers":[{"selected":["Allow"],"previewDigest":"`+digest+`"}],"via":"cli"}`)
	if m["type"] != "ok" {
		t.Fatalf("the right digest: reply %v, want ok", m)
	}
	if res := pfResponse(t, asker); !res.Answered || res.Answers[0].SelectedOption != "Allow" {
		t.Fatalf("result %+v", res)
	}
}

// The pending file shows the preview under "approves" with its digest
// beside it, bidi controls escaped; an answer typed into it and saved the
// way editors save is taken with the digest the buffer holds, and a save
// whose buffer lost it is refused with the file's problem report.
func TestPendingFileAllowTakesTheBuffersDigest(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	asker := pfAsk(t, e, "perm-2", allowQuestion)
	testenv.PendingFile(t, e, "perm-2")
	data, err := os.ReadFile(e.Pending)
	if err != nil {
		t.Fatal(err)
	}
	digest := socketproto.PreviewDigest(allowQuestion.Options[0].Preview)
	if bytes.Contains(data, []byte("\u202e")) || !bytes.Contains(data, []byte(`rm -rf ./tmp \u202e# only tmp`)) {
		t.Fatalf("the file must show the bidi override as \\u202e, never raw:\n%s", data)
	}
	digestField := regexp.MustCompile(`\s*"approvesDigest": \{\s*"Allow": "` + digest + `"\s*\},`)
	if !digestField.Match(data) {
		t.Fatalf("no approvesDigest beside approves:\n%s", data)
	}

	// A buffer without the digest (deleted, or from before it was written):
	// the answer is refused, and the file says why.
	edited := digestField.ReplaceAll(data, nil)
	edited = bytes.Replace(edited, []byte(`"answer": null`), []byte(`"answer": "Allow"`), 1)
	testenv.RenamePending(t, e, edited)
	problems := pfProblems(t, e, func(p []string) bool { return len(p) > 0 })
	if !strings.Contains(strings.Join(problems, "\n"), `"approvesDigest"`) || strings.Contains(strings.Join(problems, "\n"), digest) {
		t.Fatalf("problems %q: want the rule named and the digest not given away", problems)
	}

	// The file as the daemon now writes it, answered by number in an editor.
	data, err = os.ReadFile(e.Pending)
	if err != nil {
		t.Fatal(err)
	}
	if !digestField.Match(data) {
		t.Fatalf("the rewritten file lost approvesDigest:\n%s", data)
	}
	edited = bytes.Replace(data, []byte(`"answer": "Allow"`), []byte(`"answer": 1`), 1)
	edited = bytes.Replace(edited, []byte(`"answer": null`), []byte(`"answer": 1`), 1)
	testenv.RenamePending(t, e, edited)
	res := pfResponse(t, asker)
	if !res.Answered || res.Answers[0].SelectedOption != "Allow" || res.AnsweredVia != socketproto.ViaFile {
		t.Fatalf("result %+v", res)
	}
}

// A save refused for its lost "approvesDigest" says to keep the field as
// written and save again. The rewritten file holds the answer as a draft
// and the field: saved again exactly as it is (the editor reloaded it, the
// user saved), that is the user's answer, and it is sent.
func TestPendingFileRefusedAllowSavedAgainIsSent(t *testing.T) {
	t.Parallel()
	for _, style := range []string{"by rename", "in place"} {
		t.Run(style, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			e.StartDaemon()
			asker := pfAsk(t, e, "perm-3", allowQuestion)
			testenv.PendingFile(t, e, "perm-3")
			data, err := os.ReadFile(e.Pending)
			if err != nil {
				t.Fatal(err)
			}
			digest := socketproto.PreviewDigest(allowQuestion.Options[0].Preview)
			digestField := regexp.MustCompile(`\s*"approvesDigest": \{\s*"Allow": "` + digest + `"\s*\},`)
			edited := digestField.ReplaceAll(data, nil)
			edited = bytes.Replace(edited, []byte(`"answer": null`), []byte(`"answer": "Allow"`), 1)
			testenv.RenamePending(t, e, edited)
			pfProblems(t, e, func(p []string) bool { return strings.Contains(strings.Join(p, "\n"), `"approvesDigest"`) })

			data, err = os.ReadFile(e.Pending)
			if err != nil {
				t.Fatal(err)
			}
			if !digestField.Match(data) || !bytes.Contains(data, []byte(`"answer": "Allow"`)) {
				t.Fatalf("the rewritten file should hold the field and the answer as a draft:\n%s", data)
			}
			if style == "in place" {
				// A person's save comes long after the daemon's write; a test's
				// could fall in the same tick of the kernel's coarse file clock,
				// and a file of the same inode, size and time is the daemon's own.
				afterFileClockTick(t, e.Pending)
				if err := os.WriteFile(e.Pending, data, 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				testenv.RenamePending(t, e, data)
			}
			res := pfResponse(t, asker)
			if !res.Answered || res.Answers[0].SelectedOption != "Allow" || res.AnsweredVia != socketproto.ViaFile {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

// afterFileClockTick waits until a file written now gets a later time than
// path's: the kernel stamps files from a coarse clock (a few ms a tick).
func afterFileClockTick(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(filepath.Dir(path), ".clock-probe")
	defer os.Remove(probe)
	testdaemon.Eventually(t, "the file clock to pass "+path+"'s time", func() (bool, string) {
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			return false, err.Error()
		}
		p, err := os.Stat(probe)
		if err != nil {
			return false, err.Error()
		}
		return p.ModTime().After(fi.ModTime()), p.ModTime().String()
	})
}
