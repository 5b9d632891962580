package main

import (
	"strings"
	"testing"

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
