package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"askuser/socketproto"
)

func params(t *testing.T, s string) PermissionParams {
	t.Helper()
	var p PermissionParams
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

const opts = `"options":[{"optionId":"aa","name":"Always Allow","kind":"allow_always"},{"optionId":"a","name":"Allow","kind":"allow_once"},{"optionId":"r","name":"Reject","kind":"reject_once"}]`

// Which prompts are marked for rules, and what each shows: the whole input,
// its diffs, its files; a marked prompt's preview is the input alone.
func TestPermissionPreview(t *testing.T) {
	for _, c := range []struct {
		name, toolCall string
		marked         bool
		shows          []string
	}{
		{"one command", `{"toolCallId":"t","title":"ls","kind":"execute","rawInput":{"command":"ls -l","description":"List"}}`,
			true, []string{`"command": "ls -l"`, `"description": "List"`}},
		{"the description as content", `{"toolCallId":"t","kind":"execute","rawInput":{"command":"ls"},"content":[]}`, true, []string{`"command": "ls"`}},
		{"a cwd too", `{"toolCallId":"t","title":"ls","kind":"execute","rawInput":{"command":"ls","cwd":"/"}}`,
			false, []string{`"cwd": "/"`, "kind: execute"}},
		{"an argument list", `{"toolCallId":"t","title":"ls","kind":"execute","rawInput":{"command":["bash","-lc","ls"]}}`,
			false, []string{`"bash"`}},
		{"content that says more", `{"toolCallId":"t","title":"ls","kind":"execute","rawInput":{"command":"ls"},"content":[{"type":"content","content":{"type":"text","text":"[in /etc]"}}]}`,
			false, []string{"[in /etc]"}},
		{"no input: the title and content", `{"toolCallId":"t","title":"rm -rf x","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"[current working directory /p]"}}]}`,
			false, []string{"rm -rf x", "[current working directory /p]"}},
		{"an edit", `{"toolCallId":"t","title":"Write a.go","kind":"edit","content":[{"type":"diff","path":"/p/a.go","oldText":"old\r\n","newText":"new"}],"locations":[{"path":"/p/a.go","line":3}]}`,
			false, []string{"diff of /p/a.go", `"old\r\n"`, "+++ after\nnew", "/p/a.go:3"}},
		{"a new file", `{"toolCallId":"t","title":"Write b","kind":"edit","content":[{"type":"diff","path":"/p/b","newText":"x"}]}`,
			false, []string{"a new file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Prompt(params(t, `{"sessionId":"s","toolCall":`+c.toolCall+`,`+opts+`}`))
			if err != nil {
				t.Fatal(err)
			}
			req := p.Request("Agent")
			if (req.Permission != nil) != c.marked {
				t.Errorf("marked %+v, want %v", req.Permission, c.marked)
			}
			if c.marked && (req.Permission.Agent != "acp" || req.Permission.Tool != "execute" || req.Permission.Allow != "Allow") {
				t.Errorf("marked %+v", req.Permission)
			}
			q := req.Questions[0]
			for _, want := range c.shows {
				if !strings.Contains(q.Options[0].Preview, want) {
					t.Errorf("preview %q lacks %q", q.Options[0].Preview, want)
				}
			}
			if !q.Options[0].ApprovesPreview || !q.Options[1].ApprovesPreview || q.Options[2].ApprovesPreview || q.Options[2].Preview != "" {
				t.Errorf("approving options: %+v", q.Options)
			}
			if perr := socketproto.ValidateRequest(req.Request, socketproto.DefaultLimits()); perr != nil {
				t.Errorf("the daemon would refuse it: %v", perr)
			}
		})
	}
}

// Labels are the agent's names, made unique and never a remember label.
func TestPermissionLabels(t *testing.T) {
	p, err := Prompt(params(t, `{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[
		{"optionId":"1","name":"Yes","kind":"allow_once"},{"optionId":"2","name":"Yes","kind":"allow_always"},
		{"optionId":"3","name":"Allow, and remember: x","kind":"reject_once"},{"optionId":"4","name":"","kind":"reject_once"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Yes", "Yes (2)", "Option 3: Allow, and remember: x", "4"}
	for i, l := range p.Labels {
		if l != want[i] {
			t.Errorf("label %d: %q, want %q", i, l, want[i])
		}
	}
	if _, err := Prompt(params(t, `{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[]}`)); err == nil {
		t.Errorf("a request with no options was asked")
	}
}

// What the agent gets for each answer in askuser.
func TestPermissionOutcome(t *testing.T) {
	p, _ := Prompt(params(t, `{"sessionId":"s","toolCall":{"toolCallId":"t"},`+opts+`}`))
	for _, c := range []struct {
		resp socketproto.Response
		want string
	}{
		{socketproto.Response{Answered: true, Answers: []socketproto.Answer{{SelectedOption: "Always Allow"}}}, "selected aa"},
		{socketproto.Response{Answered: true, Answers: []socketproto.Answer{{SelectedOption: "Reject"}}}, "selected r"},
		{socketproto.Response{Answered: true, Answers: []socketproto.Answer{{Custom: "use pnpm", WasCustom: true}}}, "selected r"},
		{socketproto.Response{Cancelled: true}, "selected r"},
	} {
		o, _ := p.Outcome(c.resp)
		if got := o.Outcome.Outcome + " " + o.Outcome.OptionID; got != c.want {
			t.Errorf("%+v: %q, want %q", c.resp, got, c.want)
		}
	}
	noReject, _ := Prompt(params(t, `{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}`))
	if o, _ := noReject.Outcome(socketproto.Response{Cancelled: true}); o.Outcome.Outcome != "cancelled" {
		t.Errorf("a decline with no reject option: %+v", o)
	}
}
