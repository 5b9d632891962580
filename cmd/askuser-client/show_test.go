package main

import (
	"encoding/json"
	"strings"
	"testing"

	"askuser/socketproto"
)

// show prints the whole request — options, descriptions, every preview
// whole, a typed question's rule — and the digest of an approving option's
// preview only after all of it (docs/contract.md §7).
func TestShow(t *testing.T) {
	sock, park := parkingDaemon(t)
	lo, hi := 1.0, 10.0
	input := "{\n  \"command\": \"make\nrm -rf build\"\n}"
	snippet := "db, _ := sql.Open(\"sqlite\", \"app.db\")\ndefer db.Close()"
	req := socketproto.Request{RequestID: "show-1", Agent: &socketproto.Agent{Name: "claude-code", ID: "cc-1", Cwd: "/home/u/proj"},
		Questions: []socketproto.Question{
			{Question: "Allow the agent to use Bash with the input shown?", Header: "Permission", Options: []socketproto.Option{
				{Label: "Allow", Description: "Run Bash with this input", Preview: input, ApprovesPreview: true},
				{Label: "Deny", Description: "Do not run it"},
			}},
			{Question: "Which database?", Options: []socketproto.Option{
				{Label: "SQLite", Description: "Lightweight,\nfile-based", Preview: snippet},
				{Label: "PostgreSQL"},
			}},
			{Question: "How many workers?", Input: &socketproto.Input{Type: socketproto.InputInteger, Minimum: &lo, Maximum: &hi}},
		}}
	park(req)
	run := func(args ...string) (int, string, string) {
		return runCommand(append([]string{"show", "--socket", sock}, args...)...)
	}

	code, out, stderr := run("show-1")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	digest := socketproto.PreviewDigest(input)
	for _, want := range []string{
		"show-1  parked, asked by claude-code (cc-1)",
		"  in /home/u/proj\n",
		"1. [Permission] Allow the agent to use Bash with the input shown?\n",
		"   1) Allow\n      Run Bash with this input\n      choosing it approves all of this (4 lines):\n" +
			"      │ {\n      │   \"command\": \"make\n      │ rm -rf build\"\n      │ }\n" +
			"      digest: " + digest + "\n      to approve it: askuser-client answer show-1 --digest " + digest + " ANSWER… (1 for question 1)\n",
		"   2) Deny\n      Do not run it\n",
		"   1) SQLite\n      Lightweight,\n      file-based\n      preview:\n      │ db, _ := sql.Open(\"sqlite\", \"app.db\")\n      │ defer db.Close()\n",
		"3. How many workers?\n   answer: a whole number from 1 to 10\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "digest: "); n != 1 {
		t.Errorf("%d digest lines, want one (only Allow approves its preview):\n%s", n, out)
	}

	code, out, _ = run("show-1", "--json")
	var got struct {
		socketproto.Pending
		Approvals []approval `json:"approvals"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitOK {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, out)
	}
	if len(got.Approvals) != 1 || got.Approvals[0] != (approval{0, 0, "Allow", digest}) || got.Questions[0].Options[0].Preview != input {
		t.Errorf("--json: %+v", got.Approvals)
	}

	if code, _, stderr := run("nope"); code != exitFailed || !strings.Contains(stderr, `no request "nope" is waiting`) {
		t.Errorf("an unknown id: exit %d, stderr %q", code, stderr)
	}
}
