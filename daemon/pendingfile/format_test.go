package pendingfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

func boolp(b bool) *bool { return &b }

// dbQuestion and nameQuestion are the two questions of docs/contract.md §5's example.
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
// their muscle memory depend on it. It is docs/contract.md §5's example with the
// read-only "choices" after "options" and "previews" after them (the
// descriptions and the preview are docs/contract.md §3's).
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
          "choices": [
            "1. PostgreSQL (Recommended) — Battle-tested relational DB",
            "2. SQLite — Lightweight, file-based",
            "3. MongoDB"
          ],
          "previews": {
            "SQLite": [
              "db, _ := sql.Open(\"sqlite\", \"app.db\")"
            ]
          },
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
		if got, want := string(r.render(0, set)), string(Render(set)); got != want {
			t.Fatalf("step %d: the reusing renderer wrote\n%s\nwant\n%s", i, got, want)
		}
		var f File
		if err := json.Unmarshal(r.render(0, set), &f); err != nil || len(f.Requests) != len(set) {
			t.Fatalf("step %d: %v, %d requests", i, err, len(f.Requests))
		}
	}
}

// TestRenderChoices: "choices" numbers the options in their order, adds a
// description after " — " when there is one, and escapes nothing beyond what
// JSON must: newlines and tabs of a description stay in one JSON string,
// HTML characters stay as typed. A question without options has none.
func TestRenderChoices(t *testing.T) {
	long := strings.Repeat("long description ", 58) // 986 characters, under the limit of 1,000
	for _, tc := range []struct {
		name string
		q    socketproto.Question
		want string // the rendered question, from its "options" to its "answer"
	}{
		{"no descriptions", socketproto.Question{Question: "Which database should we use?", Header: "Database",
			Options: []socketproto.Option{{Label: "PostgreSQL (Recommended)"}, {Label: "SQLite"}, {Label: "MongoDB"}}}, `
          "options": [
            "PostgreSQL (Recommended)",
            "SQLite",
            "MongoDB"
          ],
          "choices": [
            "1. PostgreSQL (Recommended)",
            "2. SQLite",
            "3. MongoDB"
          ],
          "multiSelect": false,
          "answer": null`},
		{"descriptions, multi-line and HTML-ish", socketproto.Question{Question: "Which features?", MultiSelect: boolp(true),
			Options: []socketproto.Option{
				{Label: "Authentication", Description: "Relational, ACID"},
				{Label: "<none> & \"quoted\"", Description: "First line\nsecond line\tafter a tab", Preview: "CREATE TABLE \"t\" (\n\tid INTEGER\n);"},
				{Label: "Logging", Description: long},
			}}, `
          "options": [
            "Authentication",
            "<none> & \"quoted\"",
            "Logging"
          ],
          "choices": [
            "1. Authentication — Relational, ACID",
            "2. <none> & \"quoted\" — First line\nsecond line\tafter a tab",
            "3. Logging — ` + long + `"
          ],
          "previews": {
            "<none> & \"quoted\"": [
              "CREATE TABLE \"t\" (",
              "\tid INTEGER",
              ");"
            ]
          },
          "multiSelect": true,
          "answer": null`},
		{"an option that approves its preview: the whole preview, line by line", socketproto.Question{Question: "Allow Bash?", MultiSelect: boolp(false),
			Options: []socketproto.Option{
				{Label: "Allow", Preview: "{\n  \"command\": \"make && curl x | sh\"\n}", ApprovesPreview: true},
				{Label: "Deny", Preview: "approves nothing: under \"previews\""},
			}}, `
          "choices": [
            "1. Allow",
            "2. Deny"
          ],
          "previews": {
            "Deny": [
              "approves nothing: under \"previews\""
            ]
          },
          "approves": {
            "Allow": [
              "{",
              "  \"command\": \"make && curl x | sh\"",
              "}"
            ]
          },
          "approvesDigest": {
            "Allow": "` + socketproto.PreviewDigest("{\n  \"command\": \"make && curl x | sh\"\n}") + `"
          },
          "multiSelect": false,
          "answer": null`},
		{"free text: no options, no choices", nameQuestion, `
          "question": "What should we name this service?",
          "answer": null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pending("r", tc.q)
			out := string(Render([]socketproto.Pending{p}))
			if !strings.Contains(out, tc.want) {
				t.Errorf("Render:\n%s\nwant it to contain:%s", out, tc.want)
			}
			if strings.Count(out, `"choices"`) != min(len(tc.q.Options), 1) {
				t.Errorf("%d \"choices\" fields for %d options", strings.Count(out, `"choices"`), len(tc.q.Options))
			}
			// Read back, "choices" is nothing: the labels come from "options".
			f, err := Parse([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			fq := f.Requests[0].Questions[0]
			if fq.Choices != nil || len(fq.Options) != len(tc.q.Options) {
				t.Errorf("parsed choices %q, options %q", fq.Choices, fq.Options)
			}
			for i, o := range tc.q.Options {
				if fq.Options[i] != o.Label {
					t.Errorf("options[%d] = %q, want %q", i, fq.Options[i], o.Label)
				}
			}
			if acts := Merge(f, []socketproto.Pending{p}); len(acts) != 0 {
				t.Errorf("merging the daemon's own file changes something: %+v", acts)
			}
		})
	}
}

// "approves" and "previews" are for reading only, like "choices": whatever
// a save makes of them, the file still parses and the answer is what
// "answer" says.
func TestApprovesIgnoredOnRead(t *testing.T) {
	for _, field := range []string{"approves", "previews"} {
		for _, v := range []string{`{"Allow": ["edited"]}`, `7`, `null`, `"Allow"`, `[{"x": [true]}]`} {
			saved := `{"requests": [{"requestId": "r", "questions": [{"question": "Allow Bash?", "` + field + `": ` + v + `, "answer": "Deny"}]}]}`
			f, err := Parse([]byte(saved))
			if err != nil {
				t.Fatalf("%s %s: %v", field, v, err)
			}
			if got := string(f.Requests[0].Questions[0].Answer); got != `"Deny"` {
				t.Errorf("%s %s: answer %s, want \"Deny\"", field, v, got)
			}
		}
	}
}

// "approvesDigest" is read, leniently: a save that garbles it still parses,
// and only an answer choosing the approving option is then refused (merge).
func TestApprovesDigestReadLeniently(t *testing.T) {
	for v, want := range map[string]string{`{"Allow": "sha256:1"}`: "sha256:1", `7`: "", `null`: "", `{"Allow": 1}`: "", `"Allow"`: ""} {
		saved := `{"requests": [{"requestId": "r", "questions": [{"question": "Allow Bash?", "approvesDigest": ` + v + `, "answer": "Deny"}]}]}`
		f, err := Parse([]byte(saved))
		if err != nil {
			t.Fatalf("approvesDigest %s: %v", v, err)
		}
		fq := f.Requests[0].Questions[0]
		if string(fq.Answer) != `"Deny"` || fq.ApprovesDigest["Allow"] != want {
			t.Errorf("approvesDigest %s: answer %s, digest %q, want \"Deny\" and %q", v, fq.Answer, fq.ApprovesDigest["Allow"], want)
		}
	}
}

// Agent text is written with its bidi controls escaped ("Trojan Source"):
// an editor shows \u202e where the approved command would read reversed,
// and the value read back is the agent's, unchanged.
func TestRenderEscapesBidiControls(t *testing.T) {
	preview := "rm -rf ./tmp \u2067;\u2066 # only tmp\u202e"
	q := socketproto.Question{Question: "Allow \u202eBash?", Header: "Perm\u200f", MultiSelect: boolp(false),
		Options: []socketproto.Option{
			{Label: "Allow", Description: "runs \u061c it", Preview: preview, ApprovesPreview: true},
			{Label: "Deny"},
		}}
	p := pending("r", q)
	p.Agent = &socketproto.Agent{Name: "agent\u202e"}
	p.Metadata = json.RawMessage(`{"note":"\u202e raw in metadata"}`)
	p.Draft = []json.RawMessage{json.RawMessage("{\"custom\":\"no \u202e\"}")}
	out := Render([]socketproto.Pending{p})
	for _, r := range string(out) {
		if agenttext.IsBidiControl(r) {
			t.Fatalf("raw %U in the file:\n%s", r, out)
		}
	}
	for _, want := range []string{`\u202e`, `\u2067`, `\u2066`, `\u200f`, `\u061c`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the file does not show %s:\n%s", want, out)
		}
	}
	f, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	fq := f.Requests[0].Questions[0]
	if fq.Question != q.Question || fq.Header != q.Header {
		t.Errorf("read back: %q, %q", fq.Question, fq.Header)
	}
	// The daemon's own file, read back, changes nothing: the escaped draft
	// is the draft it holds.
	if acts := Merge(f, []socketproto.Pending{p}); len(acts) != 0 {
		t.Errorf("merging the daemon's own file changes something: %+v", acts)
	}
}

// A file tool's input is shown under "approves" as the pane draws it (the
// file's text, numbered), not as JSON lines with literal \n; the digest
// beside it is the preview's, and the file reads back as the daemon's own.
func TestApprovesAFileAsItsText(t *testing.T) {
	preview := "{\n  \"content\": \"package a\\n\\nfunc A() {}\\n\",\n  \"file_path\": \"/src/a.go\"\n}"
	q := socketproto.Question{Question: "Allow the agent to use Write with the input shown?", MultiSelect: boolp(false),
		Options: []socketproto.Option{
			{Label: "Allow", Preview: preview, ApprovesPreview: true, PreviewForm: "write"},
			{Label: "Deny"},
		}}
	p := pending("r", q)
	out := Render([]socketproto.Pending{p})
	f, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	// Line by line, in order, between "approves" and its digest.
	at := bytes.Index(out, []byte(`"approves"`))
	for _, line := range []string{`"file_path: /src/a.go",`, `"content: 3 lines",`, `"1  package a",`, `"2",`, `"3  func A() {}"`, `"approvesDigest"`} {
		k := bytes.Index(out[max(at, 0):], []byte(line))
		if at < 0 || k < 0 {
			t.Fatalf("the file does not show the Write as its text (%s):\n%s", line, out)
		}
		at += k
	}
	if got := f.Requests[0].Questions[0].ApprovesDigest["Allow"]; got != socketproto.PreviewDigest(preview) {
		t.Errorf("approvesDigest %q, want the preview's", got)
	}
	if acts := Merge(f, []socketproto.Pending{p}); len(acts) != 0 {
		t.Errorf("merging the daemon's own file changes something: %+v", acts)
	}
}
