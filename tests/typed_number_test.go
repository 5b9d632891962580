package tests

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// A typed number answered from the shell reaches the agent exactly as
// typed, in every result shape, or is refused naming the rule
// (docs/contract.md §3 "Typed answers"). Before, 9007199254740993 was sent
// as 9007199254740992 and 3.0000000000000001 as the whole number 3.
func TestClientTypedNumberAsTyped(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	req := `{"questions":[{"question":"Which id?","input":{"type":"integer"}},{"question":"Ratio?","input":{"type":"number"}}]}`
	mustClient(t, e, req, "ask", "--no-wait", "--request-id", "num-1", "-")

	for _, c := range []struct{ id, ratio, refusal string }{
		{"9007199254740993", "0.1", "answers[0]: 9007199254740993: an integer beyond ±9007199254740991 is not carried exactly by JSON numbers"},
		{"3.0000000000000001", "0.1", "answers[0]: 3.0000000000000001 is not a whole number"},
		{"3", "3.0000000000000001", "answers[1]: 3.0000000000000001 has more digits than a JSON number carries (a reader takes it as 3)"},
	} {
		if _, errOut, code := e.Client("", "answer", "num-1", c.id, c.ratio); code != 1 || !strings.Contains(errOut, c.refusal) {
			t.Errorf("answer %s %s: exit %d, stderr %q; want the refusal %q", c.id, c.ratio, code, errOut, c.refusal)
		}
	}
	mustClient(t, e, "", "answer", "num-1", "9007199254740991", "1.50")

	for _, format := range []string{"json", "pi"} {
		out := mustClient(t, e, "", "wait", "num-1", "--format", format)
		dec := json.NewDecoder(strings.NewReader(out))
		dec.UseNumber()
		var r struct{ Answers []struct{ Answer any } }
		if err := dec.Decode(&r); err != nil || len(r.Answers) != 2 {
			t.Fatalf("--format %s: %v\n%s", format, err, out)
		}
		if r.Answers[0].Answer != json.Number("9007199254740991") || r.Answers[1].Answer != json.Number("1.50") {
			t.Errorf("--format %s: answers %v %v, want the numbers 9007199254740991 and 1.50 as typed:\n%s", format, r.Answers[0].Answer, r.Answers[1].Answer, out)
		}
	}
	var claude struct{ Answers map[string]string }
	decodeJSON(t, mustClient(t, e, "", "wait", "num-1", "--format", "claude"), &claude)
	if want := map[string]string{"Which id?": "9007199254740991", "Ratio?": "1.50"}; !reflect.DeepEqual(claude.Answers, want) {
		t.Errorf("--format claude: %v, want %v", claude.Answers, want)
	}
	if out := mustClient(t, e, "", "wait", "num-1", "--format", "text"); out != "Which id?: 9007199254740991\nRatio?: 1.50\n" {
		t.Errorf("--format text: %q", out)
	}
}

// An MCP server's integer field, answered from the shell through
// mcp-proxy: a number a JSON reader would take as another is refused
// naming the rule, and nothing reaches the server until the answer is one
// it reads as typed. Before, 3.0000000000000001 reached the server as 3.
func TestMCPProxyTypedNumberFromTheShell(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	events := testenv.Watch(t, e)
	p := proxySpawn(t, e, "proxy-test", nil, proxyProtocols[0])
	ch := mcpCallInBackground(context.Background(), p, "configure", map[string]any{})
	added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
	answers := func(count, ratio string) string {
		return `["blue", ` + count + `, ` + ratio + `, "Yes", "widget", ["a"], ""]`
	}
	for _, c := range []struct{ count, ratio, refusal string }{
		{`"3.0000000000000001"`, `0.5`, "answers[1]: 3.0000000000000001 is not a whole number"},
		{`9007199254740993`, `0.5`, "answers[1]: 9007199254740993: an integer beyond ±9007199254740991"},
		{`3`, `0.50000000000000001`, "answers[2]: 0.50000000000000001 has more digits than a JSON number carries"},
	} {
		if _, errOut, code := e.Client("", "answer", added.RequestID, "--answers", answers(c.count, c.ratio)); code != 1 || !strings.Contains(errOut, c.refusal) {
			t.Errorf("count %s, ratio %s: exit %d, stderr %q; want %q", c.count, c.ratio, code, errOut, c.refusal)
		}
	}
	mustClient(t, e, "", "answer", added.RequestID, "--answers", answers(`"4"`, `"0.25"`))
	got := elicitedOf(t, p, ch)
	if got.Action != "accept" || got.Content["count"] != 4.0 || got.Content["ratio"] != 0.25 {
		t.Errorf("the server received %+v", got)
	}
}
