package main

import (
	"encoding/json"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// An option number the question does not have is still sent, as typed text
// (SPEC §3), and the user is told so on stderr.
func TestAnswerNumberThatIsNoOptionIsTextAndSaysSo(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	noWait := false
	for _, id := range []string{"two-options", "by-number"} {
		req := socketproto.AskUserRequest{Wait: &noWait, Request: socketproto.Request{RequestID: id, Questions: []socketproto.Question{
			{Question: "Proceed?", Options: []socketproto.Option{{Label: "Yes"}, {Label: "No"}}},
			{Question: "Name?"},
		}}}
		if err := c.Send(req); err != nil {
			t.Fatal(err)
		}
		watch("request_added")
	}

	var stdout, stderr strings.Builder
	if code := dispatch([]string{"answer", "--socket", sock, "two-options", "5", "7"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("answer: exit %d; stderr %s", code, stderr.String())
	}
	want := `askuser-client answer: 5 is not an option number of question 1 ("Proceed?" has options 1 to 2); it was sent as typed text` + "\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n got %q\nwant %q", stderr.String(), want)
	}
	stdout.Reset()
	if code := dispatch([]string{"wait", "--socket", sock, "two-options", "--format", "pi"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("wait: exit %d; stderr %s", code, stderr.String())
	}
	var got struct{ Answers []socketproto.Answer }
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil || len(got.Answers) != 2 || got.Answers[0].Custom != "5" || !got.Answers[0].WasCustom {
		t.Errorf("result: %s (%v)", stdout.String(), err)
	}

	stderr.Reset()
	if code := dispatch([]string{"answer", "--socket", sock, "by-number", "2", "7"}, strings.NewReader(""), &stdout, &stderr); code != exitOK || stderr.Len() != 0 {
		t.Errorf("a real option number: exit %d, stderr %q", code, stderr.String())
	}
}
