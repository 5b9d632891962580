package pendingfile

import (
	"encoding/json"
	"testing"
	"time"

	"askuser/socketproto"
)

func boolp(b bool) *bool { return &b }

// dbQuestion and nameQuestion are the two questions of SPEC §5's example.
var (
	dbQuestion = socketproto.Question{
		Question: "Which database should we use?", Header: "Database", MultiSelect: boolp(false),
		Options: []socketproto.Option{
			{Label: "PostgreSQL (Recommended)", Description: "Battle-tested relational DB"},
			{Label: "SQLite", Description: "Lightweight, file-based", Preview: "db, _ := sql.Open(\"sqlite\", \"app.db\")"},
			{Label: "MongoDB"},
		},
	}
	nameQuestion     = socketproto.Question{Question: "What should we name this service?"}
	featuresQuestion = socketproto.Question{
		Question: "Which features?", MultiSelect: boolp(true),
		Options: []socketproto.Option{{Label: "Authentication"}, {Label: "Caching"}, {Label: "Logging"}},
	}
)

func pending(id string, qs ...socketproto.Question) socketproto.Pending {
	return socketproto.Pending{
		Request:   socketproto.Request{RequestID: id, Questions: qs},
		CreatedAt: time.Date(2026, 11, 21, 22, 16, 32, 0, time.UTC),
		Status:    socketproto.StatusWaiting,
		Draft:     make([]json.RawMessage, len(qs)),
	}
}

// TestRenderSpecExample pins the file's exact shape: a user's editor and
// their muscle memory depend on it.
func TestRenderSpecExample(t *testing.T) {
	p := pending("req-123", dbQuestion, nameQuestion)
	p.Agent = &socketproto.Agent{ID: "a1", Name: "claude-main"}
	p.Metadata = json.RawMessage(`{"source":"project-setup"}`)
	want := `{
  "instructions": "Fill in each \"answer\" (your text, an option's label, or its number) and save. A request is sent when all of its answers are filled. Set \"cancel\": true on a request to decline it.",
  "requests": [
    {
      "requestId": "req-123",
      "agent": "claude-main",
      "askedAt": "2026-11-21T22:16:32Z",
      "metadata": {
        "source": "project-setup"
      },
      "cancel": false,
      "questions": [
        {
          "question": "Which database should we use?",
          "header": "Database",
          "options": [
            "PostgreSQL (Recommended)",
            "SQLite",
            "MongoDB"
          ],
          "multiSelect": false,
          "answer": null
        },
        {
          "question": "What should we name this service?",
          "answer": null
        }
      ]
    }
  ]
}
`
	if got := string(Render([]socketproto.Pending{p})); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderCases(t *testing.T) {
	withDraft := pending("d", dbQuestion, featuresQuestion, nameQuestion)
	withDraft.Draft = []json.RawMessage{json.RawMessage(`2`), nil, json.RawMessage(`"order-<processor> & co"`)}
	noName := pending("n", nameQuestion)
	noName.Agent = &socketproto.Agent{ID: "agent-7"}
	badDraft := pending("b", nameQuestion)
	badDraft.Draft = []json.RawMessage{json.RawMessage(`{oops`)}
	for _, tc := range []struct {
		name    string
		pending []socketproto.Pending
		check   func(t *testing.T, f *File)
		// repairs: merging the written file back fixes something in the state.
		repairs bool
	}{
		{"empty set is an empty list", nil, func(t *testing.T, f *File) {
			if f.Requests == nil || len(f.Requests) != 0 {
				t.Errorf("requests = %#v, want []", f.Requests)
			}
		}, false},
		{"drafts become answers, HTML not escaped", []socketproto.Pending{withDraft}, func(t *testing.T, f *File) {
			qs := f.Requests[0].Questions
			if string(qs[0].Answer) != "2" || string(qs[1].Answer) != "null" || string(qs[2].Answer) != `"order-<processor> & co"` {
				t.Errorf("answers = %s, %s, %s", qs[0].Answer, qs[1].Answer, qs[2].Answer)
			}
			if qs[1].MultiSelect == nil || !*qs[1].MultiSelect {
				t.Errorf("multiSelect of a multiSelect question = %v", qs[1].MultiSelect)
			}
		}, false},
		{"agent id when no name", []socketproto.Pending{noName}, func(t *testing.T, f *File) {
			if f.Requests[0].Agent != "agent-7" {
				t.Errorf("agent = %q", f.Requests[0].Agent)
			}
		}, false},
		{"a broken draft is written as null", []socketproto.Pending{badDraft}, func(t *testing.T, f *File) {
			if string(f.Requests[0].Questions[0].Answer) != "null" {
				t.Errorf("answer = %s", f.Requests[0].Questions[0].Answer)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Render(tc.pending)
			if string(Render(tc.pending)) != string(out) {
				t.Fatal("Render is not deterministic")
			}
			f, err := Parse(out)
			if err != nil {
				t.Fatalf("Parse(Render) = %v\n%s", err, out)
			}
			if f.Instructions != Instructions {
				t.Errorf("instructions = %q", f.Instructions)
			}
			tc.check(t, f)
			if acts := Merge(f, tc.pending); len(acts) != 0 && !tc.repairs {
				t.Errorf("merging the daemon's own file changes something: %+v", acts)
			}
		})
	}
}

// TestRendererReuse: the renderer that reuses unchanged requests writes
// exactly what a fresh Render writes, through drafts, removals and an id
// asked again after it resolved.
func TestRendererReuse(t *testing.T) {
	var r renderer
	a, b, c := pending("a", dbQuestion, nameQuestion), pending("b", featuresQuestion), pending("c", nameQuestion)
	b.Agent = &socketproto.Agent{Name: "pi"}
	b.Metadata = json.RawMessage(`{"k": [1, 2]}`)
	a2 := a
	a2.Draft = []json.RawMessage{json.RawMessage(`"SQLite"`), nil}
	reused := pending("a", featuresQuestion)
	reused.CreatedAt = a.CreatedAt.Add(time.Second)
	for i, set := range [][]socketproto.Pending{
		{a, b},
		{a2, b, c},
		{b, c},
		{b, c, reused},
		{},
		{a},
	} {
		if got, want := string(r.render(set)), string(Render(set)); got != want {
			t.Fatalf("step %d: the reusing renderer wrote\n%s\nwant\n%s", i, got, want)
		}
		var f File
		if err := json.Unmarshal(r.render(set), &f); err != nil || len(f.Requests) != len(set) {
			t.Fatalf("step %d: %v, %d requests", i, err, len(f.Requests))
		}
	}
}
