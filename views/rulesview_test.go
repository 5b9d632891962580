package views

import (
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
)

// The Rules view in the terminal: R opens it (the core asks the daemon),
// each rule shows in words with who made it and its use, x revokes the one
// under the cursor, Esc goes back to the question; a rule's answer is one
// line above the question.
func TestRulesView(t *testing.T) {
	t.Parallel()
	h := newH(t, 100, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Event(socketproto.RuleAnswered{RequestID: "req-9", RuleID: 4, Sentence: "Bash: go test ./... (and with more arguments) in ~/src/shop, for all agents"})
	h.Has("allowed by rule 4: Bash: go test ./... (and with more arguments) in ~/src/shop, for all agents", "Which database")

	h.Press("R")
	if _, ok := h.LastSent().(socketproto.RulesRequest); !ok {
		t.Fatalf("R sent %#v; want the rules asked for", h.LastSent())
	}
	h.Has("Loading…")
	made := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	h.Event(socketproto.Rules{Revision: 2, Path: "/s/rules.json", Rules: []socketproto.ListedRule{
		{Rule: socketproto.Rule{ID: 3, Made: made, MadeVia: "pane"}, Sentence: "Bash: make build (and with more arguments) in ~/src/shop, for Codex"},
		{Rule: socketproto.Rule{ID: 4, Made: made, MadeVia: "hand"}, Sentence: "Bash: go test ./... (exactly) in ~/src/shop, for all agents",
			RuleUse: socketproto.RuleUse{Answered: 2, LastAnswered: &made}},
	}})
	h.Has("3  Bash: make build", "4  Bash: go test ./... (exactly)", "in the pane; has not answered yet", "answered 2×", "x revoke")
	h.HasNot("Which database")
	h.Press("<Down>", "x")
	sent := h.D.Sent()
	if len(sent) < 2 {
		t.Fatalf("sent %#v", sent)
	}
	if r, ok := sent[len(sent)-2].(socketproto.RevokeRule); !ok || r.ID != 4 {
		t.Errorf("x sent %#v; want rule 4 revoked", sent[len(sent)-2])
	}
	h.Press("<Esc>")
	h.Has("Which database")
}

// At 80 columns a rule's sentence and details wrap under the sentence, not
// back to column 1 under its id; at 40 nothing is cut off.
func TestRulesViewWrapsUnderTheSentence(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 40} {
		h := newH(t, width, 24)
		h.Event(snap())
		h.Press("R")
		made := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
		sentence := "Bash: go test ./... -run TestSomethingQuiteLong -count=1 (and with more arguments) in ~/src/a-fairly-long-project, for claude"
		h.Event(socketproto.Rules{Revision: 2, Path: "/s/rules.json", Rules: []socketproto.ListedRule{
			{Rule: socketproto.Rule{ID: 12, Made: made, MadeVia: "pane"}, Sentence: sentence, RuleUse: socketproto.RuleUse{Answered: 2, LastAnswered: &made}},
		}})
		h.Has("12  Bash: go test")
		lines := h.Lines()
		first := -1
		for i, l := range lines {
			if strings.Contains(l, "12  Bash:") {
				first = i
				break
			}
		}
		col := strings.Index(lines[first], "12  Bash:") + len("12  ")
		var body []string
		for _, l := range lines[first+1:] {
			if strings.TrimSpace(l) == "" || strings.Contains(l, "↑↓") {
				break
			}
			if lead := len(l) - len(strings.TrimLeft(l, " ")); lead != col {
				t.Errorf("at %d columns a rule's line starts at column %d, want %d (under the sentence):\n%s", width, lead, col, h.Text())
			}
			body = append(body, strings.TrimSpace(l))
		}
		all := strings.Join(append([]string{strings.TrimSpace(lines[first][col:])}, body...), " ")
		for _, want := range []string{"for claude", "answered 2×"} {
			if !strings.Contains(all, want) {
				t.Errorf("at %d columns %q is cut off:\n%s", width, want, h.Text())
			}
		}
	}
}
