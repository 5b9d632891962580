package daemon

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"askuser/internal/config"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// A step of a scenario: on connection `on`, send a line (when send is set),
// then read one message per expectation, in order. send may also be one of
// the actions "CLOSE" (close the connection) or "SHUT_WR" (half-close it).
type step struct {
	on     string
	send   string
	expect []string
}

const (
	q1      = testdaemon.DBQuestions
	q2      = `"questions":[{"question":"Name?"},{"question":"Port?"}]`
	ask1    = `{"type":"ask_user_request","requestId":"r1",` + q1 + "}\n"
	ask2    = `{"type":"ask_user_request","requestId":"r2",` + q2 + "}\n"
	park1   = `{"type":"ask_user_request","requestId":"r1","wait":false,` + q1 + "}\n"
	answer1 = `{"type":"answer","requestId":"r1","answers":["2"]}` + "\n"
	cancel1 = `{"type":"cancel","requestId":"r1"}` + "\n"
	wait1   = `{"type":"wait","requestId":"r1"}` + "\n"
)

func TestQueueScenarios(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		cfg   func(*config.Config)
		steps []step
	}{
		{"hello", nil, []step{
			{"a", `{"type":"hello","protocol":1,"client":"t/1"}` + "\n", []string{"hello protocol=1 server=askuserd/" + Version}},
			{"a", `{"type":"hello","protocol":2}` + "\n", []string{"error code=unsupported_protocol field=protocol"}},
			{"a", `{"type":"hello"}` + "\n", []string{"error code=unsupported_protocol field=protocol"}},
		}},
		{"ask then answer from another connection", nil, []step{
			{"w", `{"type":"subscribe","role":"pane"}` + "\n", []string{"snapshot state=idle pending=[]"}},
			{"a", ask1, []string{"ask_user_queued requestId=r1 position=1"}},
			{"w", "", []string{"request_added request.requestId=r1 request.status=waiting request.draft=[null] request.tool=ask_user",
				"state state=waiting_for_user pending.0.requestId=r1"}},
			{"b", answer1, []string{"ok requestId=r1"}},
			{"a", "", []string{"ask_user_response requestId=r1 answered=true cancelled=false answeredVia=cli answers.0.answer=SQLite answers.0.selectedOption=SQLite"}},
			{"w", "", []string{"request_resolved requestId=r1 outcome=answered via=cli", "state state=idle pending=[]"}},
			{"b", answer1, []string{"error code=already_resolved field=requestId requestId=r1"}},
			{"b", cancel1, []string{"error code=already_resolved requestId=r1"}},
			{"b", wait1, []string{"ask_user_response requestId=r1 answered=true answers.0.answer=SQLite"}},
		}},
		{"positions count the queue", nil, []step{
			{"a", ask1, []string{"ask_user_queued position=1"}},
			{"b", ask2, []string{"ask_user_queued position=2"}},
			{"c", `{"type":"list"}` + "\n", []string{"list pending.0.requestId=r1 pending.1.requestId=r2 pending.1.draft=[null,null]"}},
			{"c", `{"type":"status"}` + "\n", []string{"status state=waiting_for_user pending=2 panes=0"}},
		}},
		{"a generated id", nil, []step{
			{"a", `{"type":"ask_user_request",` + q1 + "}\n", []string{"ask_user_queued position=1"}},
		}},
		{"answer from a pane says via pane", nil, []step{
			{"a", ask1, []string{"ask_user_queued"}},
			{"p", `{"type":"subscribe","role":"pane"}` + "\n", []string{"snapshot state=waiting_for_user pending.0.requestId=r1"}},
			{"p", answer1, []string{"request_resolved outcome=answered via=pane", "state state=idle", "ok"}},
			{"a", "", []string{"ask_user_response answeredVia=pane"}},
		}},
		{"duplicate id", nil, []step{
			{"a", ask1, []string{"ask_user_queued"}},
			{"b", ask1, []string{"error code=duplicate_request_id field=requestId requestId=r1"}},
			{"b", ask2, []string{"ask_user_queued requestId=r2"}},
		}},
		{"parked then wait", nil, []step{
			{"a", park1, []string{"ask_user_queued requestId=r1"}},
			{"a", "CLOSE", nil},
			{"c", `{"type":"list"}` + "\n", []string{"list pending.0.status=parked"}},
			{"b", answer1, []string{"ok"}},
			{"d", wait1, []string{"ask_user_response requestId=r1 answered=true"}},
		}},
		{"wait on a parked request makes it waiting", nil, []step{
			{"w", `{"type":"subscribe"}` + "\n", []string{"snapshot"}},
			{"a", park1, []string{"ask_user_queued"}},
			{"w", "", []string{"request_added request.status=parked", "state"}},
			{"b", wait1, nil},
			{"w", "", []string{"request_updated request.status=waiting"}},
			{"c", answer1, []string{"ok"}},
			{"b", "", []string{"ask_user_response requestId=r1"}},
			{"w", "", []string{"request_resolved outcome=answered", "state state=idle"}},
		}},
		{"a parked request whose waiter leaves is parked again, not orphaned", func(c *config.Config) { c.Daemon.OrphanGrace.Duration = time.Millisecond }, []step{
			{"w", `{"type":"subscribe"}` + "\n", []string{"snapshot"}},
			{"a", park1, []string{"ask_user_queued"}},
			{"w", "", []string{"request_added request.status=parked", "state"}},
			{"b", wait1, nil},
			{"w", "", []string{"request_updated request.status=waiting"}},
			{"b", "CLOSE", nil},
			{"w", "", []string{"request_updated request.status=parked"}},
			{"c", answer1, []string{"ok"}},
			{"w", "", []string{"request_resolved requestId=r1 outcome=answered", "state state=idle"}},
		}},
		{"orphaned, then wait within the grace", nil, []step{
			{"w", `{"type":"subscribe"}` + "\n", []string{"snapshot"}},
			{"a", ask1, []string{"ask_user_queued"}},
			{"w", "", []string{"request_added request.status=waiting", "state"}},
			{"a", "CLOSE", nil},
			{"w", "", []string{"request_updated request.status=orphaned"}},
			{"b", wait1, nil},
			{"w", "", []string{"request_updated request.status=waiting"}},
			{"c", answer1, []string{"ok"}},
			{"b", "", []string{"ask_user_response requestId=r1 answered=true"}},
			{"w", "", []string{"request_resolved outcome=answered", "state state=idle"}},
		}},
		{"orphan withdrawn after the grace", func(c *config.Config) { c.Daemon.OrphanGrace.Duration = 50 * time.Millisecond }, []step{
			{"w", `{"type":"subscribe"}` + "\n", []string{"snapshot"}},
			{"a", ask1, []string{"ask_user_queued"}},
			{"w", "", []string{"request_added", "state"}},
			{"a", "CLOSE", nil},
			{"w", "", []string{"request_updated request.status=orphaned",
				"request_resolved requestId=r1 outcome=withdrawn via=agent", "state state=idle"}},
			{"b", wait1, []string{"error code=not_found requestId=r1"}},
			{"b", answer1, []string{"error code=already_resolved"}},
		}},
		{"half-closed asker still gets its answer", nil, []step{
			{"a", ask1, []string{"ask_user_queued"}},
			{"a", "SHUT_WR", nil},
			{"c", `{"type":"list"}` + "\n", []string{"list pending.0.status=waiting"}},
			{"b", answer1, []string{"ok"}},
			{"a", "", []string{"ask_user_response answered=true"}},
		}},
		{"cancel from the asker withdraws", nil, []step{
			{"w", `{"type":"subscribe"}` + "\n", []string{"snapshot"}},
			{"a", ask1, []string{"ask_user_queued"}},
			{"w", "", []string{"request_added", "state"}},
			{"a", cancel1, []string{"ok requestId=r1"}},
			{"w", "", []string{"request_resolved outcome=withdrawn via=agent", "state state=idle"}},
			{"b", answer1, []string{"error code=already_resolved"}},
		}},
		{"cancel of a parked request from its own connection withdraws", nil, []step{
			{"a", park1, []string{"ask_user_queued"}},
			{"a", cancel1, []string{"ok requestId=r1"}},
			{"b", wait1, []string{"error code=not_found requestId=r1"}},
		}},
		{"cancel of a parked request from elsewhere declines", nil, []step{
			{"a", park1, []string{"ask_user_queued"}},
			{"b", cancel1, []string{"ok requestId=r1"}},
			{"b", wait1, []string{"ask_user_response cancelled=true"}},
		}},
		{"cancel from another connection declines", nil, []step{
			{"w", `{"type":"subscribe"}` + "\n", []string{"snapshot"}},
			{"a", ask1, []string{"ask_user_queued"}},
			{"w", "", []string{"request_added", "state"}},
			{"b", `{"type":"cancel","requestId":"r1","via":"cli"}` + "\n", []string{"ok requestId=r1"}},
			{"a", "", []string{"ask_user_response answered=false cancelled=true answers=[] answersByQuestion={}"}},
			{"w", "", []string{"request_resolved outcome=cancelled via=cli", "state state=idle"}},
			{"b", wait1, []string{"ask_user_response cancelled=true"}},
		}},
		{"sub-agents are refused", nil, []step{
			{"a", `{"type":"ask_user_request","requestId":"s1","agent":{"id":"x","subagent":true},` + q1 + "}\n",
				[]string{"error code=subagent_not_allowed requestId=s1"}},
			{"a", `{"type":"ask_user_request","agent":{"parentId":"p"},` + q1 + "}\n", []string{"error code=subagent_not_allowed"}},
			{"a", ask1, []string{"ask_user_queued"}},
		}},
		{"queue full", func(c *config.Config) { c.Limits.MaxPending = 2 }, []step{
			{"a", park1, []string{"ask_user_queued"}},
			{"a", ask2, []string{"ask_user_queued"}},
			{"b", `{"type":"ask_user_request","requestId":"r3",` + q1 + "}\n", []string{"error code=queue_full requestId=r3"}},
			{"c", answer1, []string{"ok"}},
			{"b", `{"type":"ask_user_request","requestId":"r3",` + q1 + "}\n", []string{"ask_user_queued position=2"}},
		}},
		{"invalid answers name the index", nil, []step{
			{"a", ask2, []string{"ask_user_queued"}},
			{"b", `{"type":"answer","requestId":"r2","answers":["x"]}` + "\n", []string{"error code=invalid_answer requestId=r2"}},
			{"b", `{"type":"answer","requestId":"r2","answers":["x","  "]}` + "\n", []string{"error code=invalid_answer field=answers[1]"}},
			{"b", `{"type":"answer","requestId":"nope","answers":["x"]}` + "\n", []string{"error code=not_found field=requestId"}},
			{"b", `{"type":"answer","requestId":"r2","answers":["x","8080"]}` + "\n", []string{"ok"}},
			{"a", "", []string{"ask_user_response answersByQuestion.Port?=8080"}},
		}},
		{"bad input keeps the connection", nil, []step{
			{"a", "not json\n", []string{"error code=bad_json"}},
			{"a", "[1,2]\n", []string{"error code=bad_json"}},
			{"a", `{"type":"frobnicate"}` + "\n", []string{"error code=unknown_type field=type"}},
			{"a", `{"type":"ask_user_request","questions":[{"question":"q","multiSelect":"yes"}]}` + "\n",
				[]string{"error code=invalid_request field=questions[0].multiSelect"}},
			{"a", "{\"type\":\"hello\",\"client\":\"\xff\"}\n", []string{"error code=bad_json"}},
			{"a", `{"type":"ask_user_request","requestId":"v1","tool":"ask_user_question",` + q1 + "}\n",
				[]string{"error code=invalid_request requestId=v1"}},
			{"a", ask1, []string{"ask_user_queued"}},
		}},
		{"pipelined messages are answered in order", nil, []step{
			{"a", park1 + `{"type":"list"}` + "\n" + `{"type":"status"}` + "\n" + "oops\n" + answer1,
				[]string{"ask_user_queued", "list pending.0.requestId=r1", "status pending=1", "error code=bad_json", "ok"}},
		}},
		{"first resolution wins within one connection's pipeline", nil, []step{
			{"a", ask1, []string{"ask_user_queued"}},
			{"b", answer1 + `{"type":"cancel","requestId":"r1","via":"pane"}` + "\n",
				[]string{"ok", "error code=already_resolved"}},
			{"a", "", []string{"ask_user_response answered=true"}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sock := testDaemon(t, tc.cfg)
			conns := map[string]*testdaemon.Raw{}
			for i, st := range tc.steps {
				c := conns[st.on]
				if c == nil {
					c = testdaemon.DialRaw(t, sock)
					conns[st.on] = c
				}
				switch st.send {
				case "":
				case "CLOSE":
					c.Conn.Close()
				case "SHUT_WR":
					_ = c.Conn.CloseWrite()
				default:
					c.Send(st.send)
				}
				for _, want := range st.expect {
					m := c.Recv()
					if msg := testdaemon.Mismatch(m, want); msg != "" {
						t.Fatalf("step %d on %s: want %q, got %v (%s)", i, st.on, want, m, msg)
					}
				}
			}
			// Nothing unexpected is left for anyone.
			for name, c := range conns {
				if m, err := c.TryRecv(50 * time.Millisecond); err == nil {
					t.Errorf("%s: unexpected message %v", name, m)
				}
			}
		})
	}
}

func TestDraftIsAListWithNulls(t *testing.T) {
	t.Parallel()
	p := socketproto.Pending{Draft: make([]json.RawMessage, 2)}
	b, _ := socketproto.Encode(socketproto.RequestAdded{Request: p})
	if !strings.Contains(string(b), `"draft":[null,null]`) {
		t.Errorf("draft encodes as %s", b)
	}
}
