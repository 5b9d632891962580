package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/internal/history"
	"askuser/socketproto"
)

// historyDir points XDG_STATE_HOME at a temporary dir and returns where
// history.jsonl goes.
func historyDir(t *testing.T) string {
	root := t.TempDir()
	t.Setenv("XDG_STATE_HOME", root)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	dir := filepath.Join(root, "askuser")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, history.File)
}

func entry(id, q, a string, outcome socketproto.Outcome, at time.Time) string {
	e := history.Entry{RequestID: id, Questions: []socketproto.Question{{Question: q}},
		Answers: []socketproto.Answer{}, Outcome: outcome, Via: "pane", Time: at,
		Agent: &socketproto.Agent{ID: "a-1", Name: "claude"}}
	if outcome == socketproto.OutcomeAnswered {
		e.AnswersByQuestion = map[string]string{q: a}
		e.Answers = []socketproto.Answer{{Question: q, Answer: socketproto.AnswerValue{Text: a}, Notes: "keep it small"}}
	}
	b, _ := json.Marshal(e)
	return string(b) + "\n"
}

func runHistoryArgs(t *testing.T, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"history"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestHistory(t *testing.T) {
	at := time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC)
	three := entry("r1", "Which DB?", "SQLite", "answered", at) +
		entry("r2", "Name?", "", "cancelled", at.Add(time.Minute)) +
		entry("r3", "Port?", "8080", "answered", at.Add(2*time.Minute))
	for _, tc := range []struct {
		name     string
		file     *string // nil: no file
		args     []string
		want     []string // substrings of stdout, in order
		wantNot  []string
		wantErr  string
		wantCode int
	}{
		{name: "no file", args: nil, want: []string{"No history yet.\n"}},
		{name: "empty file", file: ptr(""), want: []string{"No history yet.\n"}},
		{name: "all three, newest last", file: &three, want: []string{
			"pane  claude (a-1)  r1\n  Which DB?: SQLite\n  (notes on \"Which DB?\": keep it small)\n",
			"cancelled via pane  claude (a-1)  r2\n  Name?: (cancelled)\n",
			"  Port?: 8080\n"}},
		{name: "-n 1", file: &three, args: []string{"-n", "1"}, want: []string{"Port?: 8080"}, wantNot: []string{"Which DB?", "Name?"}},
		{name: "-n 0 is all", file: &three, args: []string{"-n", "0"}, want: []string{"Which DB?", "Name?", "Port?"}},
		{name: "--json", file: &three, args: []string{"--json", "-n", "2"}, want: []string{`{"requestId":"r2"`, "\n" + `{"requestId":"r3"`}, wantNot: []string{"r1"}},
		{name: "damage skipped", file: ptr("garbage\n" + three + `{"requestId":"r4","quest`), args: []string{"-n", "1"},
			want: []string{"Port?: 8080"}, wantErr: "skipped 2 damaged lines"},
		// The sanitiser every surface uses removes a sequence whole, not
		// just its control characters (docs/contract.md §6 "Untrusted text").
		{name: "terminal control sequences dropped", file: ptr(entry("r5", "Which DB?", "\x1b]0;pwned\x07SQLite\x1b[2J", "answered", at)),
			want: []string{"  Which DB?: SQLite\n"}, wantNot: []string{"\x1b", "\x07", "pwned"}},
		{name: "a long answer wraps", file: ptr(entry("r6", "Why?", strings.Repeat("because ", 40)+"done", "answered", at)),
			want: []string{"  Why?: because because", "\n    because because", "done\n"}},
		{name: "negative -n", file: &three, args: []string{"-n", "-1"}, wantCode: exitUsage, wantErr: "-n: need 0 or more"},
		{name: "arguments", file: &three, args: []string{"extra"}, wantCode: exitUsage, wantErr: "history takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := historyDir(t)
			if tc.file != nil {
				if err := os.WriteFile(path, []byte(*tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			out, errOut, code := runHistoryArgs(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.wantCode, errOut)
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stdout lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.wantNot {
				if strings.Contains(out, w) {
					t.Errorf("stdout has %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut, tc.wantErr)
			}
		})
	}
}

func ptr(s string) *string { return &s }
