package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/daemon/rules"
	"askuser/internal/config"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// permissionAsk is a permission prompt as the hooks ask it: Allow (whole
// input as its preview) and Deny, marked for agent kind in cwd.
func permissionAsk(id, agent, command, cwd string) socketproto.AskUserRequest {
	input, _ := json.MarshalIndent(map[string]string{"command": command, "description": "Run it"}, "", "  ")
	multi := false
	return socketproto.AskUserRequest{Request: socketproto.Request{
		RequestID: id,
		Tool:      socketproto.ToolAskUserQuestion,
		Questions: []socketproto.Question{{Question: "Allow the agent to use Bash with the input shown?", Header: "Permission", MultiSelect: &multi,
			Options: []socketproto.Option{
				{Label: "Allow", Preview: string(input), ApprovesPreview: true},
				{Label: "Deny"},
			}}},
		Agent:      &socketproto.Agent{ID: agent + "-s1", Name: agent, Cwd: cwd},
		Permission: &socketproto.PermissionPrompt{Agent: agent, Tool: "Bash", Allow: "Allow"},
	}}
}

// rulesRig is a daemon, a watcher that sees every request, and a project
// directory for the prompts.
type rulesRig struct {
	t     *testing.T
	sock  string
	w     *socketproto.Conn
	dir   string
	state string
}

func newRulesRig(t *testing.T, cfg func(*config.Config)) *rulesRig {
	d := testdaemon.Serve(t, runForTest, "", cfg)
	dir := filepath.Join(d.Root, "shop")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	return &rulesRig{t: t, sock: d.Socket, w: testdaemon.Watch(t, d.Socket), dir: dir, state: d.StateDir}
}

// ask sends req and returns its connection once queued, or its response
// when the daemon answered at once.
func (g *rulesRig) ask(req socketproto.AskUserRequest) (*socketproto.Conn, *socketproto.Response) {
	g.t.Helper()
	c := testdaemon.Dial(g.t, g.sock)
	if err := c.Send(req); err != nil {
		g.t.Fatal(err)
	}
	m := testdaemon.Recv(g.t, c, testdaemon.Wait)
	if e, ok := m.(*socketproto.Error); ok {
		g.t.Fatalf("ask %s: %v", req.RequestID, e)
	}
	if q := m.(socketproto.Queued); q.Position == 0 {
		r := testdaemon.RecvType(g.t, c, "ask_user_response", testdaemon.Wait).(socketproto.Response)
		return c, &r
	}
	return c, nil
}

// added is the request the watcher saw queued.
func (g *rulesRig) added() socketproto.Pending {
	g.t.Helper()
	return testdaemon.RecvType(g.t, g.w, "request_added", testdaemon.Wait).(socketproto.RequestAdded).Request
}

// choose answers id with the option labelled label, its preview seen.
func (g *rulesRig) choose(p socketproto.Pending, label string) {
	g.t.Helper()
	for _, o := range p.Questions[0].Options {
		if o.Label == label {
			a, _ := json.Marshal(map[string]any{"selected": []string{label}, "previewDigest": socketproto.PreviewDigest(o.Preview)})
			testdaemon.SendOK(g.t, g.sock, socketproto.AnswerRequest{RequestID: p.RequestID, Answers: []json.RawMessage{a}, Via: socketproto.ViaPane})
			return
		}
	}
	g.t.Fatalf("no option %q in %+v", label, p.Questions[0].Options)
}

func (g *rulesRig) send(msg socketproto.Message) socketproto.Message {
	g.t.Helper()
	c := testdaemon.Dial(g.t, g.sock)
	if err := c.Send(msg); err != nil {
		g.t.Fatal(err)
	}
	return testdaemon.Recv(g.t, c, testdaemon.Wait)
}

// TestRuleMadeAnswersAndIsRevoked: choosing "Allow, and remember" (all
// agents) allows and saves the rule; the identical prompt, the same with
// more arguments and Codex's identical prompt are answered by it at once
// (via "rule", its id, Allow as the agent's answer); a different command
// is asked; after revoke the identical prompt is asked again.
func TestRuleMadeAnswersAndIsRevoked(t *testing.T) {
	g := newRulesRig(t, nil)
	c, _ := g.ask(permissionAsk("p1", "claude-code", "go test ./...", g.dir))
	p := g.added()
	labels := testdaemon.Remembers(p)
	want := socketproto.RememberPrefix + "Bash: go test ./... (and with more arguments) in " + g.dir + ", for all agents"
	if len(labels) != 2 || labels[1] != want {
		t.Fatalf("remember options %q; want the second to be %q", labels, want)
	}
	g.choose(p, want)
	resp := testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait).(socketproto.Response)
	if resp.Answers[0].SelectedOption != "Allow" || resp.RuleID != 1 || resp.AnsweredVia != socketproto.ViaPane {
		t.Fatalf("the asker got %+v; want Allow, rule 1, via pane", resp)
	}

	for _, req := range []socketproto.AskUserRequest{
		permissionAsk("p2", "claude-code", "go test ./...", g.dir),
		permissionAsk("p3", "claude-code", "go test ./... ./api", filepath.Join(g.dir, "api")),
		permissionAsk("p4", "codex", "go  test  './...'", g.dir),
	} {
		_, r := g.ask(req)
		if r == nil {
			t.Fatalf("%s (%s) was queued; want it answered by the rule", req.RequestID, req.Questions[0].Options[0].Preview)
		}
		if r.AnsweredVia != socketproto.ViaRule || r.RuleID != 1 || r.Answers[0].SelectedOption != "Allow" || !r.Answered {
			t.Errorf("%s: %+v; want Allow by rule 1", req.RequestID, r)
		}
		ev := testdaemon.RecvType(t, g.w, "rule_answered", testdaemon.Wait).(socketproto.RuleAnswered)
		if ev.RequestID != req.RequestID || ev.RuleID != 1 {
			t.Errorf("rule_answered %+v", ev)
		}
	}
	for i, cmd := range []string{"go testify", "go test ./... && rm x", "go vet ./...", "go test ./... -run X", "go test ./... /elsewhere"} {
		if _, r := g.ask(permissionAsk(fmt.Sprintf("q%d", i), "claude-code", cmd, g.dir)); r != nil {
			t.Errorf("%q was answered by %+v; want it asked", cmd, r)
		}
		g.added()
	}
	if _, r := g.ask(permissionAsk("other-dir", "claude-code", "go test ./...", t.TempDir())); r != nil {
		t.Errorf("another directory was answered by the rule")
	}
	g.added()

	list := g.send(socketproto.RulesRequest{}).(socketproto.Rules)
	if len(list.Rules) != 1 || list.Rules[0].Answered != 3 || list.Rules[0].MadeVia != "pane" || list.Rules[0].MadeFrom != "p1" {
		t.Errorf("rules: %+v", list)
	}
	if _, ok := g.send(socketproto.RevokeRule{ID: 1}).(socketproto.OK); !ok {
		t.Fatal("revoke refused")
	}
	c, r := g.ask(permissionAsk("p5", "claude-code", "go test ./...", g.dir))
	if r != nil {
		t.Fatalf("after revoke the prompt was answered: %+v", r)
	}
	// The rule made now is a new one: id 2, no uses of rule 1's.
	g.choose(g.added(), want)
	if resp := testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait).(socketproto.Response); resp.RuleID != 2 {
		t.Errorf("the rule made after revoking 1 is %d, want 2", resp.RuleID)
	}
	list = g.send(socketproto.RulesRequest{}).(socketproto.Rules)
	if len(list.Rules) != 1 || list.Rules[0].ID != 2 || list.Rules[0].Answered != 0 || list.Rules[0].LastAnswered != nil {
		t.Errorf("after revoke and make: %+v", list.Rules)
	}
}

// TestRuleStaleSaveAndOthersWritable: a save of the rules file from a copy
// older than a revoke does not bring the rule back; a rules file others
// can write answers nothing.
func TestRuleStaleSaveAndOthersWritable(t *testing.T) {
	g := newRulesRig(t, nil)
	c, _ := g.ask(permissionAsk("p1", "claude-code", "make build", g.dir))
	p := g.added()
	g.choose(p, testdaemon.Remembers(p)[0])
	testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait)
	path := filepath.Join(g.state, rules.FileName)
	stale, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g.send(socketproto.RevokeRule{ID: 1})
	if err := os.WriteFile(path, stale, 0o600); err != nil { // the editor's buffer, saved
		t.Fatal(err)
	}
	if _, r := g.ask(permissionAsk("p2", "claude-code", "make build", g.dir)); r != nil {
		t.Fatalf("a stale save brought the revoked rule back: %+v", r)
	}
	g.added()
	list := g.send(socketproto.RulesRequest{}).(socketproto.Rules)
	if len(list.Rules) != 0 || !strings.Contains(list.Problem, "saved from revision 1") {
		t.Errorf("after the stale save: %+v", list)
	}

	// The same file, current, but writable by others: refused.
	c, _ = g.ask(permissionAsk("p3", "claude-code", "make test", g.dir))
	p = g.added()
	g.choose(p, testdaemon.Remembers(p)[0])
	testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait)
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, r := g.ask(permissionAsk("p4", "claude-code", "make test", g.dir)); r != nil {
		t.Errorf("a rules file others can write answered: %+v", r)
	}
	g.added()
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, r := g.ask(permissionAsk("p5", "claude-code", "make test", g.dir)); r == nil {
		t.Errorf("the rules file made private again answers nothing")
	}
}

// TestRuleNothingAnAgentSends: an agent's request that offers an option
// of the daemon's own kind is refused; one without the marker gets none.
func TestRuleNothingAnAgentSends(t *testing.T) {
	g := newRulesRig(t, nil)
	req := permissionAsk("p1", "claude-code", "go test ./...", g.dir)
	req.Questions[0].Options = append(req.Questions[0].Options, socketproto.Option{Label: socketproto.RememberPrefix + "anything", Preview: "x", ApprovesPreview: true})
	c := testdaemon.Dial(t, g.sock)
	_ = c.Send(req)
	if e, ok := testdaemon.Recv(t, c, testdaemon.Wait).(*socketproto.Error); !ok || e.Code != socketproto.CodeInvalidRequest || e.Field != "questions[0].options[2].label" {
		t.Errorf("want invalid_request on the label, got %v", e)
	}
	req = permissionAsk("p2", "claude-code", "go test ./...", g.dir)
	req.Permission = nil
	g.ask(req)
	if l := testdaemon.Remembers(g.added()); l != nil {
		t.Errorf("a request without the marker got %q", l)
	}
}

// TestRuleProposedAfterAllows: after rules.propose_after Allows of the same
// input, the identical prompt marks its remember option with the count;
// the agent's options keep their places (option 1 is still Allow), and
// nothing else changes.
func TestRuleProposedAfterAllows(t *testing.T) {
	g := newRulesRig(t, func(c *config.Config) { c.Rules.ProposeAfter = 2 })
	for i := range 3 {
		c, _ := g.ask(permissionAsk("p"+string(rune('1'+i)), "codex", "npm run lint", g.dir))
		p := g.added()
		opts := p.Questions[0].Options
		if opts[0].Label != "Allow" || opts[1].Label != "Deny" || !strings.HasPrefix(opts[2].Label, socketproto.RememberPrefix) {
			t.Errorf("prompt %d: options %q, %q, %q", i+1, opts[0].Label, opts[1].Label, opts[2].Label)
		}
		if marked := strings.HasPrefix(opts[2].Description, "You allowed this 2 times."); marked != (i == 2) {
			t.Errorf("prompt %d: the remember option says %q", i+1, opts[2].Description)
		}
		g.choose(p, "Allow")
		testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait)
	}
	if list := g.send(socketproto.RulesRequest{}).(socketproto.Rules); len(list.Rules) != 0 {
		t.Errorf("rules made without a choice: %+v", list.Rules)
	}
}

// TestRuleHandEditedAndExpired: a rule written into the file by hand (no
// id) is given one and answers; one past its expiry answers nothing; a
// file that breaks a rule's rules is refused whole, naming the field.
func TestRuleHandEditedAndExpired(t *testing.T) {
	g := newRulesRig(t, nil)
	path := filepath.Join(g.state, rules.FileName)
	write := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"revision": 0, "rules": [{"tool": "Bash", "command": "make lint", "match": "exact", "dir": "` + g.dir + `", "agents": "codex"}]}`)
	if _, r := g.ask(permissionAsk("p1", "codex", "make lint", g.dir)); r == nil || r.RuleID != 1 {
		t.Fatalf("the hand-written rule did not answer: %+v", r)
	}
	if _, r := g.ask(permissionAsk("p2", "codex", "make lint -j4", g.dir)); r != nil {
		t.Errorf("an exact rule covered more arguments")
	}
	g.added()
	list := g.send(socketproto.RulesRequest{}).(socketproto.Rules)
	if len(list.Rules) != 1 || list.Rules[0].MadeVia != "hand" || list.Revision != 1 {
		t.Errorf("rules: %+v", list)
	}
	write(`{"revision": 1, "rules": [{"id": 1, "tool": "Bash", "command": "make lint", "match": "exact", "dir": "` + g.dir + `", "agents": "codex", "expires": "2001-01-01T00:00:00Z"}]}`)
	if _, r := g.ask(permissionAsk("p3", "codex", "make lint", g.dir)); r != nil {
		t.Errorf("an expired rule answered")
	}
	g.added()
	write(`{"revision": 2, "rules": [{"tool": "Bash", "command": "make  lint", "match": "exact", "dir": "` + g.dir + `", "agents": "codex"}]}`)
	list = g.send(socketproto.RulesRequest{}).(socketproto.Rules)
	if !strings.Contains(list.Problem, "rules[0].command") || len(list.Rules) != 1 {
		t.Errorf("a rule that breaks the rules: %+v", list)
	}
}

// TestRuleProposalCountedFromHistory: the Allows that mark the offer are
// counted from history, across a restart; a prompt that was waiting when
// the daemon stopped still saves the rule it offered when chosen, though
// the tree changed meanwhile (a .git appeared above the directory).
func TestRuleProposalCountedFromHistory(t *testing.T) {
	root := testdaemon.ShortRoot(t)
	cfg := func(c *config.Config) { c.Rules.ProposeAfter = 2 }
	dir := filepath.Join(root, "shop")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock, stop := daemonAt(t, root, cfg)
	g := &rulesRig{t: t, sock: sock, w: testdaemon.Watch(t, sock), dir: dir}
	for _, id := range []string{"p1", "p2"} {
		c, _ := g.ask(permissionAsk(id, "claude-code", "go vet ./...", dir))
		g.choose(g.added(), "Allow")
		testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	req := permissionAsk("p3", "claude-code", "go vet ./...", sub)
	req.Wait = new(bool) // parked: it outlives the daemon
	g.ask(req)
	offered := testdaemon.Remembers(g.added())
	stop()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}

	sock, _ = daemonAt(t, root, cfg)
	g = &rulesRig{t: t, sock: sock, w: testdaemon.Watch(t, sock), dir: dir}
	c, _ := g.ask(permissionAsk("p4", "claude-code", "go vet ./...", dir))
	p := g.added()
	if o := p.Questions[0].Options[2]; !strings.HasSuffix(o.Label, "for Claude Code") || !strings.HasPrefix(o.Description, "You allowed this 2 times.") {
		t.Errorf("after 2 Allows in history, the remember option is %q: %q", o.Label, o.Description)
	}
	g.choose(p, "Deny")
	testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait)

	var restored socketproto.Pending
	for _, q := range g.send(socketproto.ListRequest{}).(socketproto.List).Pending {
		if q.RequestID == "p3" {
			restored = q
		}
	}
	if got := testdaemon.Remembers(restored); len(got) != 2 || got[1] != offered[1] {
		t.Fatalf("the restored prompt offers %q, it offered %q", got, offered)
	}
	waiter := testdaemon.Dial(t, sock)
	if err := waiter.Send(socketproto.Wait{RequestID: "p3"}); err != nil {
		t.Fatal(err)
	}
	testdaemon.RecvType(t, g.w, "request_updated", testdaemon.Wait) // waiting again
	g.choose(restored, offered[1])
	resp := testdaemon.RecvType(t, waiter, "ask_user_response", testdaemon.Wait).(socketproto.Response)
	if resp.Answers[0].SelectedOption != "Allow" || resp.RuleID == 0 {
		t.Errorf("the agent got %+v, want Allow and the rule's id", resp.Answers)
	}
	rl := g.send(socketproto.RulesRequest{}).(socketproto.Rules)
	if len(rl.Rules) != 1 || rl.Rules[0].Agents != socketproto.AllAgents || rl.Rules[0].MadeFrom != "p3" || rl.Rules[0].Dir != sub || rl.Rules[0].ID != resp.RuleID {
		t.Errorf("the restored prompt's choice made %+v", rl.Rules)
	}
}

// TestRuleNotSavedStillAllows: choosing a remember option when the rule
// cannot be saved (something else than a file at rules.json) still gives
// the agent Allow, with no rule id, and every surface hears that the rule
// was not saved.
func TestRuleNotSavedStillAllows(t *testing.T) {
	g := newRulesRig(t, nil)
	c, _ := g.ask(permissionAsk("p1", "claude-code", "make build", g.dir))
	p := g.added()
	if err := os.Mkdir(filepath.Join(g.state, rules.FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	g.choose(p, testdaemon.Remembers(p)[1])
	resp := testdaemon.RecvType(t, c, "ask_user_response", testdaemon.Wait).(socketproto.Response)
	if !resp.Answered || resp.Answers[0].SelectedOption != "Allow" || resp.RuleID != 0 {
		t.Fatalf("the agent got %+v; want Allow and no rule", resp)
	}
	ev := testdaemon.RecvType(t, g.w, "rule_not_saved", testdaemon.Wait).(socketproto.RuleNotSaved)
	if ev.RequestID != "p1" || !strings.Contains(ev.Sentence, "make build") || ev.Reason == "" {
		t.Errorf("rule_not_saved %+v", ev)
	}
}
