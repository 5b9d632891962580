package testenv

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// ClientWait is a safety net for anything the end-to-end tests wait on from
// a client or the daemon, never a measured threshold.
const ClientWait = 10 * time.Second

// Watch subscribes as role watch, so a test learns of each new request the
// moment the daemon queues it.
func Watch(t *testing.T, e *Env) *socketproto.Conn {
	t.Helper()
	return testdaemon.Watch(t, e.Socket)
}

// NextAdded waits for the next request_added on a watcher.
func NextAdded(t *testing.T, w *socketproto.Conn) socketproto.Pending {
	t.Helper()
	return testdaemon.RecvType(t, w, "request_added", ClientWait).(socketproto.RequestAdded).Request
}

// ListedAs polls the daemon's list until request id has the status, and
// returns it.
func ListedAs(t *testing.T, e *Env, id string, status socketproto.RequestStatus) socketproto.Pending {
	t.Helper()
	c := e.Dial()
	defer c.Close()
	var found socketproto.Pending
	testdaemon.Eventually(t, fmt.Sprintf("request %s to be listed as %s", id, status), func() (bool, string) {
		if err := c.Send(socketproto.ListRequest{}); err != nil {
			t.Fatal(err)
		}
		list := testdaemon.RecvType(t, c, "list", ClientWait).(socketproto.List).Pending
		for _, p := range list {
			if p.RequestID == id && p.Status == status {
				found = p
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", list)
	})
	return found
}

// AnswerRaw answers request id through the socket, as a pane would, and
// returns the daemon's reply.
func AnswerRaw(t *testing.T, e *Env, id string, answers ...string) socketproto.Message {
	t.Helper()
	c := e.Dial()
	defer c.Close()
	raws := make([]json.RawMessage, len(answers))
	for i, a := range answers {
		raws[i] = json.RawMessage(a)
	}
	if err := c.Send(socketproto.AnswerRequest{RequestID: id, Answers: raws, Via: socketproto.ViaPane}); err != nil {
		t.Fatal(err)
	}
	return testdaemon.Recv(t, c, 10*time.Second)
}

// ChooseInAskuser answers as a surface does once the option's preview was
// on screen: the option whose label is label (or, ending in "…", begins
// with it and ends with suffix), with its preview's digest.
func ChooseInAskuser(label, suffix string) func(*testing.T, *Env, socketproto.Pending) {
	return func(t *testing.T, e *Env, p socketproto.Pending) {
		t.Helper()
		for _, o := range p.Questions[0].Options {
			if o.Label == label || (strings.HasPrefix(o.Label, label) && strings.HasSuffix(o.Label, suffix) && suffix != "") {
				a, _ := json.Marshal(map[string]any{"selected": []string{o.Label}, "previewDigest": socketproto.PreviewDigest(o.Preview)})
				testdaemon.SendOK(t, e.Socket, socketproto.AnswerRequest{RequestID: p.RequestID, Answers: []json.RawMessage{a}, Via: socketproto.ViaPane})
				return
			}
		}
		t.Fatalf("no option %q…%q in %+v", label, suffix, p.Questions[0].Options)
	}
}

// WaitTyping waits until the daemon's draft of request id's question 0
// keeps typed text not yet accepted.
func WaitTyping(t *testing.T, e *Env, id, want string) socketproto.Pending {
	t.Helper()
	c := e.Dial()
	defer c.Close()
	var found socketproto.Pending
	testdaemon.Eventually(t, fmt.Sprintf("the daemon to keep %q as text typed in %s", want, id), func() (bool, string) {
		if err := c.Send(socketproto.ListRequest{}); err != nil {
			t.Fatal(err)
		}
		list := testdaemon.RecvType(t, c, "list", ClientWait).(socketproto.List).Pending
		for _, p := range list {
			var d struct {
				Typing string `json:"typing"`
			}
			if p.RequestID == id && len(p.Draft) > 0 && json.Unmarshal(p.Draft[0], &d) == nil && d.Typing == want {
				found = p
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", list)
	})
	return found
}
