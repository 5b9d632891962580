package views

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"askuser/socketproto"
)

// DemoRequests are fixture requests for looking at the pane without any
// agent or daemon: every kind of question, a long list, a preview, a long
// question and text that tries to take over the terminal.
func DemoRequests(now time.Time) []socketproto.Pending {
	yes := true
	no := false
	mk := func(id, agent string, ago time.Duration, qs ...socketproto.Question) socketproto.Pending {
		return socketproto.Pending{
			Request:   socketproto.Request{RequestID: id, Questions: qs, Agent: &socketproto.Agent{ID: agent, Name: agent}},
			CreatedAt: now.Add(-ago),
			Status:    socketproto.StatusWaiting,
			Draft:     make([]json.RawMessage, len(qs)),
		}
	}
	frameworks := socketproto.Question{Question: "Which framework should we use?", Header: "Framework", MultiSelect: &no}
	for _, f := range []string{"Express.js", "Fastify", "Hono", "Koa", "NestJS", "AdonisJS", "Sails", "Restify", "LoopBack", "Feathers", "Meteor", "Total.js"} {
		frameworks.Options = append(frameworks.Options, socketproto.Option{Label: f, Description: f + " for the HTTP layer"})
	}
	return []socketproto.Pending{
		mk("demo-1", "claude-main", 3*time.Minute,
			socketproto.Question{Question: "Which database should we use?", Header: "Database", Options: []socketproto.Option{
				{Label: "PostgreSQL (Recommended)", Description: "Battle-tested relational DB", Preview: "db, err := sql.Open(\"pgx\", os.Getenv(\"DATABASE_URL\"))\nif err != nil {\n\treturn err\n}"},
				{Label: "SQLite", Description: "Lightweight, file-based", Preview: "db, _ := sql.Open(\"sqlite\", \"app.db\")"},
				{Label: "MongoDB", Description: "Document store"},
			}},
			socketproto.Question{Question: "What should we name this service?", Header: "Service Name"},
			socketproto.Question{Question: "Which features should we include?", Header: "Features", MultiSelect: &yes, Options: []socketproto.Option{
				{Label: "Authentication", Description: "OAuth2 + JWT"},
				{Label: "REST API", Description: "OpenAPI spec included"},
				{Label: "Admin Dashboard"},
			}}),
		mk("demo-2", "codex", 1*time.Minute, frameworks),
		mk("demo-3", "pi", 30*time.Second,
			socketproto.Question{Question: "The migration touches 14 tables. " + strings.Repeat("Some of them are large and the copy may take a while; ", 12) + "Should we run it now?",
				Options: []socketproto.Option{{Label: "Yes, now"}, {Label: "Tonight", Description: "after 22:00, when traffic is low"}}}),
		mk("demo-4", "\x1b[31mevil-agent\x1b[0m", 10*time.Second,
			socketproto.Question{Question: "Text from agents is shown literally: [red]not red[-], \x1b]0;title\x07no title change, \u202Eno reversal.",
				Options: []socketproto.Option{{Label: "[::b]not bold"}, {Label: "\x1b[2Jno clear"}}}),
		mk("demo-5", "mcp-proxy", 5*time.Second, typedDemo()...),
	}
}

// typedDemo is an elicitation form as typed questions: a bounded number
// with a default, an email, Yes / No, an enum, an array and an optional date.
func typedDemo() []socketproto.Question {
	lo, hi, one, two, no := 1.0, 16.0, 1, 2, false
	qs := []socketproto.Question{
		{Question: "How many workers?", Header: "Workers", Input: &socketproto.Input{Type: socketproto.InputInteger, Minimum: &lo, Maximum: &hi, Default: json.RawMessage(`4`)}},
		{Question: "Who should get the report?", Header: "Email", Input: &socketproto.Input{Type: socketproto.InputString, Format: socketproto.FormatEmail}},
		{Question: "Enable TLS?", Header: "TLS", Input: &socketproto.Input{Type: socketproto.InputBoolean, Default: json.RawMessage(`true`)}},
		{Question: "Which region?", Header: "Region", Input: &socketproto.Input{Type: socketproto.InputString, Enum: []string{"eu-west-1", "us-east-1", "ap-south-1"}}},
		{Question: "Which log levels?", Header: "Logs", Input: &socketproto.Input{Type: socketproto.InputArray, MinItems: &one, MaxItems: &two,
			Items: &socketproto.InputItems{Type: socketproto.InputString, Enum: []string{"debug", "info", "warn", "error"}}}},
		{Question: "Start date?", Header: "Start", Input: &socketproto.Input{Type: socketproto.InputString, Format: socketproto.FormatDate, Required: &no}},
	}
	for i := range qs {
		qs[i] = socketproto.ApplyInput(qs[i]) // as the daemon fills them in
	}
	return qs
}

// demoDaemon answers like a daemon would, in-process.
type demoDaemon struct {
	mu  sync.Mutex
	app *App
}

func (d *demoDaemon) Send(msg socketproto.Message) error {
	d.mu.Lock()
	a := d.app
	d.mu.Unlock()
	var ev socketproto.Message
	switch m := msg.(type) {
	case socketproto.AnswerRequest:
		ev = socketproto.RequestResolved{RequestID: m.RequestID, Outcome: socketproto.OutcomeAnswered, Via: socketproto.ViaPane}
	case socketproto.Cancel:
		ev = socketproto.RequestResolved{RequestID: m.RequestID, Outcome: socketproto.OutcomeCancelled, Via: socketproto.ViaPane}
	case socketproto.DraftRequest:
		ev = socketproto.OK{RequestID: m.RequestID} // kept nowhere: the demo forgets
	default:
		return fmt.Errorf("the demo does not send %s", msg.MessageType())
	}
	go a.Deliver(ev) // Send runs on the UI goroutine: deliver from another
	return nil
}

// RunDemo opens the pane on DemoRequests, with no daemon.
func RunDemo(opt Options) error {
	opt.Demo = true
	d := &demoDaemon{}
	a := NewApp(d, opt, nil)
	d.mu.Lock()
	d.app = a
	d.mu.Unlock()
	a.Deliver(socketproto.Snapshot{State: socketproto.StateWaiting, Pending: DemoRequests(time.Now())})
	return a.Run()
}
