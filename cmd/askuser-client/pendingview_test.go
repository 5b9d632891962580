package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rivo/uniseg"

	"askuser/socketproto"
)

// Every piece of agent text list, pending and show print goes through the
// one sanitiser (docs/contract.md §6 "Untrusted text"): a bidi override in a
// question, a label, a preview or the agent's name is shown as its escape,
// never obeyed, in the text and in the JSON alike.
func TestAgentTextSanitisedInEveryListing(t *testing.T) {
	sock, park := parkingDaemon(t)
	const rlo = "\u202e"
	req := socketproto.Request{RequestID: "bidi-1", Agent: &socketproto.Agent{Name: "agent" + rlo + "gnp"},
		Questions: []socketproto.Question{{Question: "Run " + rlo + "hs.llatsni?", Options: []socketproto.Option{
			{Label: "Yes" + rlo, Preview: "rm -rf ./tmp " + rlo + ";", ApprovesPreview: true},
			{Label: "No"},
		}}}}
	park(req)
	for _, args := range [][]string{{"list"}, {"list", "--json"}, {"pending"}, {"pending", "--json"}, {"show", "bidi-1"}, {"show", "bidi-1", "--json"}} {
		var stdout, stderr strings.Builder
		if code := dispatch(append([]string{args[0], "--socket", sock}, args[1:]...), strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
		out := stdout.String()
		if strings.Contains(out, rlo) || !strings.Contains(out, `\u202e`) {
			t.Errorf("%v prints the override raw, or hides it:\n%s", args, out)
		}
	}
}

// list fits 100 columns: a permission prompt's long command and a long
// agent name are clipped, the id never is, and a request whose input is
// left out says so under the table with the command that shows it.
func TestListFitsAHundredColumns(t *testing.T) {
	now := time.Now()
	pending := []socketproto.Pending{
		{Status: "waiting", CreatedAt: now.Add(-3 * time.Second), Request: socketproto.Request{RequestID: "req-62fe8a2390cf316a",
			Agent: &socketproto.Agent{Name: "claude-code-with-a-very-long-name-indeed"},
			Questions: []socketproto.Question{{Question: "Allow Bash: " + strings.Repeat("go test ./... -run TestSomethingLong ", 4) + "?",
				Options: []socketproto.Option{{Label: "Allow", Preview: "go test", ApprovesPreview: true}, {Label: "Deny"}}}}}},
		{Status: "parked", CreatedAt: now.Add(-2 * time.Minute), Request: socketproto.Request{RequestID: "l-2", Agent: &socketproto.Agent{Name: "bash"},
			Questions: []socketproto.Question{{Question: "名前は何にしますか？" + strings.Repeat("長い質問", 20)}, {Question: "Second?"}}}},
	}
	var b strings.Builder
	writePendingTable(&b, pending, now)
	out := b.String()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := uniseg.StringWidth(line); w > listWidth {
			t.Errorf("a line of %d columns:\n%s", w, line)
		}
	}
	for _, want := range []string{"req-62fe8a2390cf316a  waiting", "[input not shown]", "(+1 more)", "…",
		"\ninput not shown: askuser-client show req-62fe8a2390cf316a\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("list does not say %q:\n%s", want, out)
		}
	}
}
