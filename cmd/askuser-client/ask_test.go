package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
)

func TestAskRequestFromFlags(t *testing.T) {
	t.Setenv("ASKUSER_AGENT_ID", "env-agent")
	t.Setenv("ASKUSER_PARENT_ID", "")
	t.Setenv("ASKUSER_SUBAGENT", "")
	f := askFlags{question: listFlag{"Which DB?"}, header: "DB", multi: true, tool: "ask_user_question",
		options: listFlag{"PostgreSQL (Recommended)=Battle-tested", "SQLite", "a=b=c"}, metadata: listFlag{"k=v", "x=1=2"}}
	req, _, err := f.request(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := req.Questions[0]
	if q.Question != "Which DB?" || q.Header != "DB" || !q.IsMulti() || len(q.Options) != 3 {
		t.Fatalf("question %+v", q)
	}
	if q.Options[0].Description != "Battle-tested" || q.Options[1].Description != "" || q.Options[2].Label != "a" || q.Options[2].Description != "b=c" {
		t.Errorf("options %+v", q.Options)
	}
	if req.Tool != "ask_user_question" || req.RequestID == "" || string(req.Metadata) != `{"k":"v","x":"1=2"}` {
		t.Errorf("request %+v metadata %s", req, req.Metadata)
	}
	if req.Agent == nil || req.Agent.ID != "env-agent" || req.Agent.Cwd == "" {
		t.Errorf("agent %+v", req.Agent)
	}
}

func TestAskRequestMerge(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.json")
	body := `{"requestId":"file-id","metadata":{"a":"1"},"agent":{"id":"file-agent","name":"Claude"},"questions":[{"question":"q?"}]}`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		f         askFlags
		env       map[string]string
		wantID    string
		wantAgent socketproto.Agent
		wantMeta  string
	}{
		{"file as is", askFlags{}, nil, "file-id", socketproto.Agent{ID: "file-agent", Name: "Claude"}, `{"a":"1"}`},
		{"flags win", askFlags{requestID: "flag-id", agentID: "flag-agent", metadata: listFlag{"a=2", "b=3"}}, nil,
			"flag-id", socketproto.Agent{ID: "flag-agent", Name: "Claude"}, `{"a":"2","b":"3"}`},
		{"env subagent sticks", askFlags{}, map[string]string{"ASKUSER_SUBAGENT": "1", "ASKUSER_PARENT_ID": "p"},
			"file-id", socketproto.Agent{ID: "file-agent", Name: "Claude", ParentID: "p", Subagent: true}, `{"a":"1"}`},
		{"flag subagent", askFlags{subagent: true}, nil, "file-id", socketproto.Agent{ID: "file-agent", Name: "Claude", Subagent: true}, `{"a":"1"}`},
	}
	wd, _ := os.Getwd()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{"ASKUSER_AGENT_ID", "ASKUSER_PARENT_ID", "ASKUSER_SUBAGENT"} {
				t.Setenv(k, c.env[k])
			}
			req, _, err := c.f.request([]string{file}, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.wantAgent.Cwd = wd
			if req.RequestID != c.wantID || *req.Agent != c.wantAgent || string(req.Metadata) != c.wantMeta {
				t.Errorf("id %q agent %+v metadata %s", req.RequestID, *req.Agent, req.Metadata)
			}
		})
	}
}

func TestAskUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "no questions"},
		{[]string{"a.json", "b.json"}, "one FILE at most"},
		{[]string{"--header", "H"}, "give --question too"},
		{[]string{"--question", "Two?", "--option", "A", "--option", "B", "--question", "Name?"}, "--question given 2 times: the flags ask one question; for several, give a request as FILE"},
		{[]string{"--question", "q", "-"}, "not both"},
		{[]string{"--question", "q", "--tool", "nope"}, "--tool"},
		{[]string{"--question", "q", "--format", "xml"}, "--format"},
		{[]string{"--question", "q", "--metadata", "=v"}, "KEY=VALUE"},
		{[]string{"--bogus"}, "askuser-client ask: unknown flag --bogus"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := askCommand.run(c.args, strings.NewReader(""), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), c.want) {
			t.Errorf("ask %v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, errb.String(), c.want)
		}
	}
}

func TestWriteResultFormats(t *testing.T) {
	answered := socketproto.Response{RequestID: "r", Answered: true,
		Answers:           []socketproto.Answer{{Question: "Q?", Answer: socketproto.AnswerValue{Text: "yes"}, Notes: "n"}},
		AnswersByQuestion: map[string]string{"Q?": "yes"}, AnsweredVia: "cli",
		AnsweredAt: time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC), Summary: "s"}
	lost := socketproto.Response{RequestID: "r", Answers: []socketproto.Answer{}, AnswersByQuestion: map[string]string{}, ConnectionLost: true}
	cases := []struct {
		name   string
		format string
		resp   socketproto.Response
		code   int
		want   []string
		absent []string
	}{
		{"json answered", "json", answered, exitOK, []string{`"requestId": "r"`, `"answeredAt": "2026-11-21T21:00:00Z"`}, []string{`"type"`, "connectionLost"}},
		{"json lost", "json", lost, exitUnreachable, []string{`"connectionLost": true`, `"answers": []`}, []string{"answeredAt"}},
		{"claude", "claude", answered, exitOK, []string{`"Q?": "yes"`, `"notes": "n"`}, []string{"requestId"}},
		{"pi lost", "pi", lost, exitUnreachable, []string{`"answered": false`, `"connectionLost": true`}, nil},
		{"text", "text", answered, exitOK, []string{"Q?: yes"}, nil},
		{"cancelled", "claude", socketproto.Response{RequestID: "r", Cancelled: true}, exitCancelled, []string{`"cancelled": true`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := printResult(&out, &errb, c.format, c.resp); code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if c.format != "text" && !json.Valid(out.Bytes()) {
				t.Errorf("not JSON: %s", out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %s:\n%s", w, out.String())
				}
			}
			for _, a := range c.absent {
				if strings.Contains(out.String(), a) {
					t.Errorf("output has %s:\n%s", a, out.String())
				}
			}
		})
	}
}
