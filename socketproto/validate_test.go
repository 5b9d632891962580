package socketproto

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func boolp(b bool) *bool { return &b }

// strictRequest is a valid ask_user_question request to break one rule at a time.
func strictRequest() Request {
	return Request{
		Tool: ToolAskUserQuestion,
		Questions: []Question{{
			Question: "Which database should we use?", Header: "Database", MultiSelect: boolp(false),
			Options: []Option{
				{Label: "PostgreSQL (Recommended)", Description: "Battle-tested relational DB"},
				{Label: "SQLite", Description: "Lightweight, file-based", Preview: "db, _ := sql.Open(\"sqlite\", \"app.db\")\n\tdefer db.Close()"},
			},
		}},
	}
}

func flexibleRequest() Request {
	return Request{Questions: []Question{{Question: "What should we name this service?"}}}
}

func opts(n int) []Option {
	o := make([]Option, n)
	for i := range o {
		o[i].Label = fmt.Sprintf("Option %d", i+1)
	}
	return o
}

func strictQuestions(n int) []Question {
	qs := make([]Question, n)
	for i := range qs {
		qs[i] = Question{Question: fmt.Sprintf("Question %d?", i+1), Header: "H", MultiSelect: boolp(false), Options: opts(2)}
	}
	return qs
}

func TestValidateRequest(t *testing.T) {
	lim := DefaultLimits()
	tests := []struct {
		name    string
		base    func() Request
		mutate  func(r *Request)
		lim     *Limits
		code    ErrorCode // "" means valid
		field   string
		message string
	}{
		{name: "strict valid", base: strictRequest, mutate: func(r *Request) {}},
		{name: "flexible valid", base: flexibleRequest, mutate: func(r *Request) {}},
		{name: "explicit ask_user", base: flexibleRequest, mutate: func(r *Request) { r.Tool = ToolAskUser }},
		{name: "unknown tool", base: flexibleRequest, mutate: func(r *Request) { r.Tool = "ask_everyone" },
			code: CodeInvalidRequest, field: "tool", message: `tool: must be "ask_user" or "ask_user_question", got "ask_everyone"`},
		{name: "bad requestId", base: flexibleRequest, mutate: func(r *Request) { r.RequestID = "has space" },
			code: CodeInvalidRequest, field: "requestId", message: `requestId: must match [A-Za-z0-9._:-]{1,128}, got "has space"`},
		{name: "requestId too long", base: flexibleRequest, mutate: func(r *Request) { r.RequestID = strings.Repeat("a", 129) },
			code: CodeInvalidRequest, field: "requestId"},
		{name: "requestId at limit", base: flexibleRequest, mutate: func(r *Request) { r.RequestID = strings.Repeat("a", 128) }},

		// question counts
		{name: "strict 0 questions", base: strictRequest, mutate: func(r *Request) { r.Questions = nil },
			code: CodeInvalidRequest, field: "questions", message: "questions: need 1 to 4 questions, got 0"},
		{name: "strict 4 questions", base: strictRequest, mutate: func(r *Request) { r.Questions = strictQuestions(4) }},
		{name: "strict 5 questions", base: strictRequest, mutate: func(r *Request) { r.Questions = strictQuestions(5) },
			code: CodeInvalidRequest, field: "questions", message: "questions: need 1 to 4 questions, got 5"},
		{name: "flexible 0 questions", base: flexibleRequest, mutate: func(r *Request) { r.Questions = []Question{} },
			code: CodeInvalidRequest, field: "questions", message: "questions: need 1 to 16 questions, got 0"},
		{name: "flexible 16 questions", base: flexibleRequest, mutate: func(r *Request) { r.Questions = strictQuestions(16) }},
		{name: "flexible 17 questions", base: flexibleRequest, mutate: func(r *Request) { r.Questions = strictQuestions(17) },
			code: CodeInvalidRequest, field: "questions", message: "questions: need 1 to 16 questions, got 17"},
		{name: "flexible configured limit", base: flexibleRequest, mutate: func(r *Request) { r.Questions = strictQuestions(3) },
			lim: &Limits{MaxQuestionsHard: 2, MaxOptionsHard: 64}, code: CodeInvalidRequest, field: "questions", message: "questions: need 1 to 2 questions, got 3"},

		// options
		{name: "strict 1 option", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options = opts(1) },
			code: CodeInvalidRequest, field: "questions[0].options", message: "questions[0].options: need 2 to 4 options, got 1"},
		{name: "strict 5 options", base: strictRequest, mutate: func(r *Request) { r.Questions = strictQuestions(2); r.Questions[1].Options = opts(5) },
			code: CodeInvalidRequest, field: "questions[1].options", message: "questions[1].options: need 2 to 4 options, got 5"},
		{name: "strict options missing", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options = nil },
			code: CodeInvalidRequest, field: "questions[0].options", message: "questions[0].options: need 2 to 4 options, got 0"},
		{name: "flexible no options", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Options = []Option{} }},
		{name: "flexible 1 option", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Options = opts(1) }},
		{name: "flexible 64 options", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Options = opts(64) }},
		{name: "flexible 65 options", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Options = opts(65) },
			code: CodeInvalidRequest, field: "questions[0].options", message: "questions[0].options: at most 64 options, got 65"},

		// header
		{name: "strict header missing", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Header = "" },
			code: CodeInvalidRequest, field: "questions[0].header"},
		{name: "strict header blank", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Header = "   " },
			code: CodeInvalidRequest, field: "questions[0].header", message: "questions[0].header: must not be empty"},
		{name: "strict header 12", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Header = strings.Repeat("h", 12) }},
		{name: "strict header 12 runes, 24 bytes", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Header = strings.Repeat("é", 12) }},
		{name: "strict header 15", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Header = strings.Repeat("h", 15) },
			code: CodeInvalidRequest, field: "questions[0].header", message: "questions[0].header: at most 12 characters, got 15"},
		{name: "flexible header omitted", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Header = "" }},
		{name: "flexible header 40", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Header = strings.Repeat("h", 40) }},
		{name: "flexible header 41", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Header = strings.Repeat("h", 41) },
			code: CodeInvalidRequest, field: "questions[0].header", message: "questions[0].header: at most 40 characters, got 41"},
		{name: "header newline", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Header = "a\nb" },
			code: CodeInvalidRequest, field: "questions[0].header", message: "questions[0].header: control character U+000A at character 2"},

		// multiSelect
		{name: "strict multiSelect missing", base: strictRequest, mutate: func(r *Request) { r.Questions[0].MultiSelect = nil },
			code: CodeInvalidRequest, field: "questions[0].multiSelect"},
		{name: "flexible multiSelect omitted", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].MultiSelect = nil }},

		// question text
		{name: "question empty", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Question = "" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: must not be empty"},
		{name: "question blank", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = " \n\t" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: must not be empty"},
		{name: "question 1000", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = strings.Repeat("ü", 1000) }},
		{name: "question 1001", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = strings.Repeat("q", 1001) },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: at most 1000 characters, got 1001"},
		{name: "question newline and tab", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "Line one\n\tLine two?" }},
		{name: "question escape", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "Which\x1b[31m?" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: control character U+001B at character 6"},
		{name: "question escape after multibyte", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "Ünïcö\x1b" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: control character U+001B at character 6"},
		{name: "question carriage return", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "a\rb" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: control character U+000D at character 2"},
		{name: "question DEL", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "a\x7f" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: control character U+007F at character 2"},
		{name: "question C1 CSI", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "a\u009b2J" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: control character U+009B at character 2"},
		{name: "question NUL", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "\x00" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: control character U+0000 at character 1"},
		{name: "question invalid UTF-8", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "ab\xffc" },
			code: CodeInvalidRequest, field: "questions[0].question", message: "questions[0].question: not valid UTF-8 (at byte 2)"},
		{name: "question U+00A0 is not a control", base: flexibleRequest, mutate: func(r *Request) { r.Questions[0].Question = "a\u00a0b" }},
		{name: "duplicate questions", base: flexibleRequest, mutate: func(r *Request) {
			r.Questions = []Question{{Question: "A?"}, {Question: "B?"}, {Question: "A?"}}
		}, code: CodeInvalidRequest, field: "questions[2].question", message: "questions[2].question: duplicate of questions[0].question"},
		{name: "duplicate questions after trim", base: flexibleRequest, mutate: func(r *Request) {
			r.Questions = []Question{{Question: "A?"}, {Question: " A? "}}
		}, code: CodeInvalidRequest, field: "questions[1].question", message: "questions[1].question: duplicate of questions[0].question"},
		{name: "questions differing in case are distinct", base: flexibleRequest, mutate: func(r *Request) {
			r.Questions = []Question{{Question: "A?"}, {Question: "a?"}}
		}},

		// labels
		{name: "label empty", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[1].Label = "" },
			code: CodeInvalidRequest, field: "questions[0].options[1].label", message: "questions[0].options[1].label: must not be empty"},
		{name: "label blank", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Label = "  " },
			code: CodeInvalidRequest, field: "questions[0].options[0].label", message: "questions[0].options[0].label: must not be empty"},
		{name: "label duplicate", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[1].Label = "PostgreSQL (Recommended)" },
			code: CodeInvalidRequest, field: "questions[0].options[1].label", message: "questions[0].options[1].label: duplicate of questions[0].options[0].label"},
		{name: "label duplicate after trim", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[1].Label = "PostgreSQL (Recommended) " },
			code: CodeInvalidRequest, field: "questions[0].options[1].label"},
		{name: "same label in two questions", base: strictRequest, mutate: func(r *Request) { r.Questions = strictQuestions(2) }},
		{name: "label 200", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Label = strings.Repeat("l", 200) }},
		{name: "label 201", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Label = strings.Repeat("l", 201) },
			code: CodeInvalidRequest, field: "questions[0].options[0].label", message: "questions[0].options[0].label: at most 200 characters, got 201"},
		{name: "label tab", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Label = "a\tb" },
			code: CodeInvalidRequest, field: "questions[0].options[0].label", message: "questions[0].options[0].label: control character U+0009 at character 2"},

		// description and preview
		{name: "description multiline", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Description = "one\ntwo\tthree" }},
		{name: "description 1001", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Description = strings.Repeat("d", 1001) },
			code: CodeInvalidRequest, field: "questions[0].options[0].description", message: "questions[0].options[0].description: at most 1000 characters, got 1001"},
		{name: "description bell", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Description = "ding\a" },
			code: CodeInvalidRequest, field: "questions[0].options[0].description", message: "questions[0].options[0].description: control character U+0007 at character 5"},
		{name: "preview 4000", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Preview = strings.Repeat("p\n", 2000) }},
		{name: "preview 4001", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].Preview = strings.Repeat("p", 4001) },
			code: CodeInvalidRequest, field: "questions[0].options[0].preview", message: "questions[0].options[0].preview: at most 4000 characters, got 4001"},
		// A preview an option approves is never cut to the limit, must be
		// there, and only on a single-select question (Allow means seen).
		{name: "approved preview 40000", base: strictRequest, mutate: func(r *Request) {
			r.Questions[0].Options[0].Preview = strings.Repeat("curl … | sh ", 4000)
			r.Questions[0].Options[0].ApprovesPreview = true
		}},
		{name: "approved preview empty", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[0].ApprovesPreview = true },
			code: CodeInvalidRequest, field: "questions[0].options[0].preview", message: "questions[0].options[0].preview: must not be empty when approvesPreview is true (the preview is what choosing the option approves)"},
		{name: "approved preview escape", base: strictRequest, mutate: func(r *Request) {
			r.Questions[0].Options[0].Preview, r.Questions[0].Options[0].ApprovesPreview = "ok\x1b[2J", true
		}, code: CodeInvalidRequest, field: "questions[0].options[0].preview", message: "questions[0].options[0].preview: control character U+001B at character 3"},
		{name: "approved preview on multi-select", base: strictRequest, mutate: func(r *Request) {
			multi := true
			r.Questions[0].MultiSelect = &multi
			r.Questions[0].Options[0].Preview, r.Questions[0].Options[0].ApprovesPreview = "rm -rf build", true
		}, code: CodeInvalidRequest, field: "questions[0].options[0].approvesPreview", message: "questions[0].options[0].approvesPreview: only on a single-select question (a multi-select list shows no previews)"},
		{name: "preview escape", base: strictRequest, mutate: func(r *Request) { r.Questions[0].Options[1].Preview = "\x1b]0;pwned\a" },
			code: CodeInvalidRequest, field: "questions[0].options[1].preview", message: "questions[0].options[1].preview: control character U+001B at character 1"},

		// metadata
		{name: "metadata object", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = json.RawMessage(`{"source":"project-setup","n":[1,"two"]}`) }},
		{name: "metadata null", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = json.RawMessage(`null`) }},
		{name: "metadata at 16 KiB", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = metadataOfSize(MaxMetadataBytes) }},
		{name: "metadata over 16 KiB", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = metadataOfSize(MaxMetadataBytes + 1) },
			code: CodeInvalidRequest, field: "metadata", message: "metadata: at most 16384 bytes, got 16385"},
		{name: "metadata list", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = json.RawMessage(`[1]`) },
			code: CodeInvalidRequest, field: "metadata", message: "metadata: must be a JSON object"},
		{name: "metadata broken", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = json.RawMessage(`{"a":`) },
			code: CodeInvalidRequest, field: "metadata", message: "metadata: must be a JSON object"},
		{name: "metadata control in value", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = json.RawMessage(`{"a":{"b":["ok","x\u001b"]}}`) },
			code: CodeInvalidRequest, field: "metadata.a.b[1]", message: "metadata.a.b[1]: control character U+001B at character 2"},
		{name: "metadata control in key", base: flexibleRequest, mutate: func(r *Request) { r.Metadata = json.RawMessage(`{"a\u0007":1}`) },
			code: CodeInvalidRequest, field: "metadata"},

		// agent
		{name: "agent fine", base: flexibleRequest, mutate: func(r *Request) { r.Agent = &Agent{ID: "claude-main", Name: "Claude Code", Cwd: "/home/u/src"} }},
		{name: "agent id 201", base: flexibleRequest, mutate: func(r *Request) { r.Agent = &Agent{ID: strings.Repeat("a", 201)} },
			code: CodeInvalidRequest, field: "agent.id", message: "agent.id: at most 200 characters, got 201"},
		{name: "agent name escape", base: flexibleRequest, mutate: func(r *Request) { r.Agent = &Agent{Name: "x\x1b[2J"} },
			code: CodeInvalidRequest, field: "agent.name", message: "agent.name: control character U+001B at character 2"},
		{name: "agent cwd 4096", base: flexibleRequest, mutate: func(r *Request) { r.Agent = &Agent{Cwd: "/" + strings.Repeat("d", 4095)} }},
		{name: "agent cwd 4097", base: flexibleRequest, mutate: func(r *Request) { r.Agent = &Agent{Cwd: "/" + strings.Repeat("d", 4096)} },
			code: CodeInvalidRequest, field: "agent.cwd", message: "agent.cwd: at most 4096 characters, got 4097"},
		{name: "agent cwd newline", base: flexibleRequest, mutate: func(r *Request) { r.Agent = &Agent{Cwd: "/tmp/a\nb"} },
			code: CodeInvalidRequest, field: "agent.cwd"},
		{name: "subagent is not a validation error", base: flexibleRequest, mutate: func(r *Request) { r.Agent = &Agent{Subagent: true} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.base()
			tc.mutate(&r)
			l := lim
			if tc.lim != nil {
				l = *tc.lim
			}
			err := ValidateRequest(r, l)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want %s on %s, got valid", tc.code, tc.field)
			}
			if err.Code != tc.code || err.Field != tc.field {
				t.Fatalf("got code %q field %q (%s); want code %q field %q", err.Code, err.Field, err.Message, tc.code, tc.field)
			}
			if tc.message != "" && err.Message != tc.message {
				t.Fatalf("message\n got: %s\nwant: %s", err.Message, tc.message)
			}
			if !strings.HasPrefix(err.Message, tc.field+": ") {
				t.Fatalf("message %q does not start with the field", err.Message)
			}
		})
	}
}

// metadataOfSize builds a JSON object of exactly n bytes.
func metadataOfSize(n int) json.RawMessage {
	const frame = `{"k":""}`
	return json.RawMessage(`{"k":"` + strings.Repeat("x", n-len(frame)) + `"}`)
}

func TestValidateRequestZeroLimitsUseDefaults(t *testing.T) {
	r := flexibleRequest()
	r.Questions = strictQuestions(16)
	if err := ValidateRequest(r, Limits{}); err != nil {
		t.Fatalf("zero limits should mean defaults: %v", err)
	}
	r.Questions = strictQuestions(17)
	if err := ValidateRequest(r, Limits{}); err == nil || err.Field != "questions" {
		t.Fatalf("want questions error, got %v", err)
	}
}

func TestCheckSubagent(t *testing.T) {
	tests := []struct {
		name  string
		agent *Agent
		deny  bool
	}{
		{"no agent", nil, false},
		{"parent", &Agent{ID: "claude-main"}, false},
		{"subagent flag", &Agent{ID: "x", Subagent: true}, true},
		{"parent id", &Agent{ID: "x", ParentID: "claude-main"}, true},
		{"both", &Agent{Subagent: true, ParentID: "p"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSubagent(tc.agent)
			if !tc.deny {
				if err != nil {
					t.Fatalf("want allowed, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want refused")
			}
			if err.Code != CodeSubagentNotAllowed || err.Field != "agent" || err.Message != SubagentMessage {
				t.Fatalf("got %+v", err)
			}
		})
	}
}
