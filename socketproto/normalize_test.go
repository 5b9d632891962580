package socketproto

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var (
	dbQuestion = Question{
		Question: "Which database should we use?", Header: "Database", MultiSelect: boolp(false),
		Options: []Option{{Label: "PostgreSQL (Recommended)"}, {Label: "SQLite"}, {Label: "MongoDB"}, {Label: "Yes, definitely"}},
	}
	featQuestion = Question{
		Question: "Which features?", Header: "Features", MultiSelect: boolp(true),
		Options: []Option{{Label: "Authentication"}, {Label: "REST API"}, {Label: "Caching"}},
	}
	nameQuestion  = Question{Question: "What should we name this service?"}
	labelsNumbers = Question{Question: "How many replicas?", Options: []Option{{Label: "3"}, {Label: "1"}, {Label: "2"}}}
	multiFree     = Question{Question: "Anything else?", MultiSelect: boolp(true)}
)

func single(label string) Answer {
	return Answer{Answer: AnswerValue{Text: label}, SelectedOption: label}
}

func typed(text string) Answer {
	return Answer{Answer: AnswerValue{Text: text}, Custom: text, WasCustom: true}
}

func multi(labels []string, custom string) Answer {
	list := append([]string(nil), labels...)
	if custom != "" {
		list = append(list, custom)
	}
	return Answer{Answer: AnswerValue{List: list, IsList: true}, SelectedOptions: labels, Custom: custom, WasCustom: custom != ""}
}

func TestNormalizeAnswer(t *testing.T) {
	tests := []struct {
		name     string
		q        Question
		raw      string
		want     Answer // Question is filled in by the test
		answered bool
		err      string // substring of the error; "" means none
	}{
		// not answered
		{name: "empty raw", q: dbQuestion, raw: ``},
		{name: "null", q: dbQuestion, raw: `null`},
		{name: "empty string", q: dbQuestion, raw: `""`},
		{name: "whitespace", q: nameQuestion, raw: `"  \n\t "`},
		{name: "empty list, single-select", q: dbQuestion, raw: `[]`},
		{name: "list of blanks", q: featQuestion, raw: `["", " ", null]`},
		{name: "empty object", q: dbQuestion, raw: `{}`},
		{name: "object with only notes", q: dbQuestion, raw: `{"notes":"hmm"}`},
		{name: "object with blank custom", q: nameQuestion, raw: `{"custom":"  ","selected":[]}`},

		// single-select: labels
		{name: "exact label", q: dbQuestion, raw: `"SQLite"`, want: single("SQLite"), answered: true},
		{name: "label case-insensitive", q: dbQuestion, raw: `"sqlite"`, want: single("SQLite"), answered: true},
		{name: "label trimmed", q: dbQuestion, raw: `"  postgresql (recommended) "`, want: single("PostgreSQL (Recommended)"), answered: true},
		{name: "label with comma", q: dbQuestion, raw: `"yes, definitely"`, want: single("Yes, definitely"), answered: true},
		{name: "unicode case folding", q: Question{Question: "Q", Options: []Option{{Label: "Ärger"}, {Label: "b"}}}, raw: `"ärger"`, want: single("Ärger"), answered: true},
		{name: "exact wins over fold", q: Question{Question: "Q", Options: []Option{{Label: "Yes"}, {Label: "yes"}}}, raw: `"yes"`, want: single("yes"), answered: true},
		{name: "first fold match wins", q: Question{Question: "Q", Options: []Option{{Label: "Yes"}, {Label: "yes"}}}, raw: `"YES"`, want: single("Yes"), answered: true},

		// single-select: numbers
		{name: "number", q: dbQuestion, raw: `2`, want: single("SQLite"), answered: true},
		{name: "number as string", q: dbQuestion, raw: `"3"`, want: single("MongoDB"), answered: true},
		{name: "number as padded string", q: dbQuestion, raw: `" 1 "`, want: single("PostgreSQL (Recommended)"), answered: true},
		{name: "number 2.0", q: dbQuestion, raw: `2.0`, want: single("SQLite"), answered: true},
		{name: "number 1e0", q: dbQuestion, raw: `1e0`, want: single("PostgreSQL (Recommended)"), answered: true},
		{name: "number 0 is refused", q: dbQuestion, raw: `0`, err: "0 is not an option number"},
		{name: "number n+1 is refused", q: dbQuestion, raw: `5`, err: "5 is not an option number: this question has options 1 to 4"},
		{name: "number 7 as string is refused", q: dbQuestion, raw: `"7"`, err: `7 is not an option number`},
		{name: "number 2.5 is typed", q: dbQuestion, raw: `2.5`, want: typed("2.5"), answered: true},
		{name: "negative number is refused", q: dbQuestion, raw: `-1`, err: `-1 is not an option number: this question has options 1 to 4; to send "-1" as your own answer, use askuser-client answer --text`},
		{name: "huge number is refused", q: dbQuestion, raw: `1e300`, err: `1e300 is not an option number`},
		{name: "huge digit string is refused", q: dbQuestion, raw: `"99999999999999999999999"`, err: `99999999999999999999999 is not an option number`},
		{name: "number out of range is refused", q: dbQuestion, raw: `7`, err: `7 is not an option number: this question has options 1 to 4; to send "7" as your own answer, use askuser-client answer --text, or {"custom": "7"} in the pending file`},
		{name: "digits out of range are refused", q: dbQuestion, raw: `" 0 "`, err: `0 is not an option number`},
		{name: "a number out of range, sent as text on purpose", q: dbQuestion, raw: `{"custom":"7"}`, want: typed("7"), answered: true},
		{name: "a number that is not whole is typed", q: dbQuestion, raw: `2.5`, want: typed("2.5"), answered: true},
		{name: "a number to a free-text question is its answer", q: nameQuestion, raw: `8`, want: Answer{Question: nameQuestion.Question, Answer: AnswerValue{Text: "8"}, Custom: "8", WasCustom: true}, answered: true},
		{name: "2.5 as string is typed", q: dbQuestion, raw: `"2.5"`, want: typed("2.5"), answered: true},
		{name: "label that is a number wins", q: labelsNumbers, raw: `"1"`, want: single("1"), answered: true},
		{name: "JSON number is always a position", q: labelsNumbers, raw: `1`, want: single("3"), answered: true},
		{name: "JSON number 3 is the third option", q: labelsNumbers, raw: `3`, want: single("2"), answered: true},
		{name: "digit string matching no label is a position", q: Question{Question: "Q", Options: []Option{{Label: "10"}, {Label: "20"}}}, raw: `"2"`, want: single("20"), answered: true},

		// single-select: typed text
		{name: "typed", q: dbQuestion, raw: `"CockroachDB"`, want: typed("CockroachDB"), answered: true},
		{name: "typed trimmed", q: dbQuestion, raw: `"  CockroachDB\n"`, want: typed("CockroachDB"), answered: true},
		{name: "typed CRLF", q: nameQuestion, raw: `"line one\r\nline two"`, want: typed("line one\nline two"), answered: true},
		{name: "typed with commas on single-select", q: dbQuestion, raw: `"SQLite, MongoDB"`, want: typed("SQLite, MongoDB"), answered: true},
		{name: "typed escape refused", q: nameQuestion, raw: `"a\u001bb"`, err: "control character U+001B at character 2"},
		{name: "free text", q: nameQuestion, raw: `"order-processor"`, want: typed("order-processor"), answered: true},
		{name: "free text number", q: nameQuestion, raw: `7`, want: typed("7"), answered: true},
		{name: "free text digits", q: nameQuestion, raw: `"2024"`, want: typed("2024"), answered: true},
		{name: "free text float", q: nameQuestion, raw: `2.5`, want: typed("2.5"), answered: true},
		{name: "long text accepted", q: nameQuestion, raw: `"` + strings.Repeat("x", 3000) + `"`, want: typed(strings.Repeat("x", 3000)), answered: true},

		// single-select: lists
		{name: "list of one", q: dbQuestion, raw: `["SQLite"]`, want: single("SQLite"), answered: true},
		{name: "list of one number", q: dbQuestion, raw: `[3]`, want: single("MongoDB"), answered: true},
		{name: "list of one typed", q: nameQuestion, raw: `["svc"]`, want: typed("svc"), answered: true},
		{name: "list of two", q: dbQuestion, raw: `["SQLite","MongoDB"]`, err: "a single-select question takes one answer, got 2"},
		{name: "list of two typed", q: nameQuestion, raw: `["a","b"]`, err: "a single-select question takes one answer, got 2"},
		{name: "list with nested list", q: dbQuestion, raw: `[["SQLite"]]`, err: "element 1: must be a string or a number, got a list"},

		// multiSelect
		{name: "multi one label", q: featQuestion, raw: `"REST API"`, want: multi([]string{"REST API"}, ""), answered: true},
		{name: "multi number", q: featQuestion, raw: `3`, want: multi([]string{"Caching"}, ""), answered: true},
		{name: "multi list in option order", q: featQuestion, raw: `["caching","Authentication"]`, want: multi([]string{"Authentication", "Caching"}, ""), answered: true},
		{name: "multi list numbers", q: featQuestion, raw: `[2,"1"]`, want: multi([]string{"Authentication", "REST API"}, ""), answered: true},
		{name: "multi duplicates collapse", q: featQuestion, raw: `["REST API","rest api",2]`, want: multi([]string{"REST API"}, ""), answered: true},
		{name: "multi list with typed is refused", q: featQuestion, raw: `["Authentication","Use Redis too"]`, err: `"Use Redis too" names no option of this question, while "Authentication" does: check the spelling; to send your own text beside the options, use {"selected": [labels…], "custom": "text"}`},
		{name: "multi object with typed", q: featQuestion, raw: `{"selected":["Authentication"],"custom":"Use Redis too"}`, want: multi([]string{"Authentication"}, "Use Redis too"), answered: true},
		{name: "multi empty list is none of these", q: featQuestion, raw: `[]`, want: Answer{Question: featQuestion.Question, Answer: AnswerValue{List: []string{}, IsList: true}, SelectedOptions: []string{}}, answered: true},
		{name: "multi empty selected is none of these", q: featQuestion, raw: `{"selected":[],"notes":"none fit"}`, want: Answer{Question: featQuestion.Question, Answer: AnswerValue{List: []string{}, IsList: true}, SelectedOptions: []string{}, Notes: "none fit"}, answered: true},
		{name: "single empty list is not answered", q: dbQuestion, raw: `[]`, want: Answer{Question: dbQuestion.Question}, answered: false},
		{name: "multi misspelt label is refused", q: featQuestion, raw: `"Authentication, Logins"`, err: `"Logins" names no option of this question, while "Authentication" does`},
		{name: "multi typed pieces joined", q: featQuestion, raw: `["Redis","Kafka"]`, want: multi(nil, "Redis, Kafka"), answered: true},
		{name: "multi comma string", q: featQuestion, raw: `"Authentication, caching"`, want: multi([]string{"Authentication", "Caching"}, ""), answered: true},
		{name: "multi comma numbers", q: featQuestion, raw: `"1,3"`, want: multi([]string{"Authentication", "Caching"}, ""), answered: true},
		{name: "multi comma trailing", q: featQuestion, raw: `"1, 2,"`, want: multi([]string{"Authentication", "REST API"}, ""), answered: true},
		{name: "multi comma with text naming no option is typed", q: featQuestion, raw: `"fast, cheap, and good"`, want: multi(nil, "fast, cheap, and good"), answered: true},
		{name: "multi comma with text beside an option is refused", q: featQuestion, raw: `"Authentication, and also Redis"`, err: `"and also Redis" names no option of this question, while "Authentication" does`},
		{name: "multi comma with a number that is no option is refused", q: featQuestion, raw: `"1, 7"`, err: `"7" names no option of this question, while "1" does`},
		{name: "multi list with a number that is no option is refused", q: featQuestion, raw: `[1, 9]`, err: `element 2: 9 is not an option number: this question has options 1 to 3`},
		{name: "multi typed only", q: featQuestion, raw: `"GraphQL"`, want: multi(nil, "GraphQL"), answered: true},
		{name: "multi without options", q: multiFree, raw: `"more tests"`, want: multi(nil, "more tests"), answered: true},
		{name: "multi without options number", q: multiFree, raw: `[4, "x"]`, want: multi(nil, "4, x"), answered: true},

		// object form
		{name: "object selected", q: dbQuestion, raw: `{"selected":["sqlite"]}`, want: single("SQLite"), answered: true},
		{name: "object selected by number", q: dbQuestion, raw: `{"selected":[2]}`, want: single("SQLite"), answered: true},
		{name: "object custom", q: dbQuestion, raw: `{"custom":"SQLite"}`, want: typed("SQLite"), answered: true},
		{name: "object notes", q: dbQuestion, raw: `{"selected":["SQLite"],"notes":" keep the old table too "}`,
			want: Answer{Answer: AnswerValue{Text: "SQLite"}, SelectedOption: "SQLite", Notes: "keep the old table too"}, answered: true},
		{name: "object multi", q: featQuestion, raw: `{"selected":["Caching","Authentication"],"custom":"Use Redis too","notes":"n"}`,
			want: func() Answer {
				a := multi([]string{"Authentication", "Caching"}, "Use Redis too")
				a.Notes = "n"
				return a
			}(), answered: true},
		{name: "object single two selected", q: dbQuestion, raw: `{"selected":["SQLite","MongoDB"]}`, err: "a single-select question takes one answer, got 2"},
		{name: "object single selected and custom", q: dbQuestion, raw: `{"selected":["SQLite"],"custom":"other"}`, err: "a single-select question takes one answer, got 2"},
		{name: "object unknown label", q: dbQuestion, raw: `{"selected":["Oracle"]}`, err: `selected[0]: "Oracle" is not an option of this question`},
		{name: "object bad number", q: dbQuestion, raw: `{"selected":[9]}`, err: `selected[0]: "9" is not an option of this question`},
		{name: "object selected on free text", q: nameQuestion, raw: `{"selected":["x"]}`, err: "this question has no options"},
		{name: "object selected not a list", q: dbQuestion, raw: `{"selected":"SQLite"}`, err: "selected: must be a list of option labels"},
		{name: "object custom not a string", q: dbQuestion, raw: `{"custom":5}`, err: "custom: must be a string"},
		{name: "object notes not a string", q: dbQuestion, raw: `{"selected":[1],"notes":[]}`, err: "notes: must be a string"},
		{name: "object unknown key", q: dbQuestion, raw: `{"selection":["SQLite"]}`, err: `unknown key "selection"`},
		{name: "object notes escape", q: dbQuestion, raw: `{"selected":[1],"notes":"\u009b"}`, err: "notes: control character U+009B"},

		// refused shapes
		{name: "boolean", q: nameQuestion, raw: `true`, err: "must be a string, a number, a list or an object, got true"},
		{name: "not JSON", q: nameQuestion, raw: `SQLite`, err: "not valid JSON"},
		{name: "two values", q: nameQuestion, raw: `"a" "b"`, err: "not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := NormalizeAnswer(tc.q, json.RawMessage(tc.raw))
			if tc.err != "" {
				if err == nil {
					t.Fatalf("want error %q, got %+v (answered %v)", tc.err, got, ok)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error\n got: %v\nwant: …%s…", err, tc.err)
				}
				if ok {
					t.Fatal("answered must be false with an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if ok != tc.answered {
				t.Fatalf("answered = %v, want %v (%+v)", ok, tc.answered, got)
			}
			if got.Question != tc.q.Question {
				t.Fatalf("Question = %q", got.Question)
			}
			if !ok {
				return
			}
			want := tc.want
			want.Question = tc.q.Question
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Fatalf("\n got: %s\nwant: %s", gj, wj)
			}
		})
	}
}

// TestNormalizeAnswerShape checks the JSON an agent sees (docs/contract.md §3 example).
func TestNormalizeAnswerShape(t *testing.T) {
	a, ok, err := NormalizeAnswer(featQuestion, json.RawMessage(`{"selected": ["Authentication"], "custom": "Use Redis too"}`))
	if err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	got, _ := json.Marshal(a)
	want := `{"question":"Which features?","answer":["Authentication","Use Redis too"],"selectedOptions":["Authentication"],"custom":"Use Redis too","wasCustom":true}`
	if string(got) != want {
		t.Fatalf("\n got: %s\nwant: %s", got, want)
	}
	a, _, _ = NormalizeAnswer(dbQuestion, json.RawMessage(`"1"`))
	got, _ = json.Marshal(a)
	want = `{"question":"Which database should we use?","answer":"PostgreSQL (Recommended)","selectedOption":"PostgreSQL (Recommended)","wasCustom":false}`
	if string(got) != want {
		t.Fatalf("\n got: %s\nwant: %s", got, want)
	}
}

func TestNormalizeAnswers(t *testing.T) {
	qs := []Question{dbQuestion, nameQuestion, featQuestion}
	raw := func(ss ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(ss))
		for i, s := range ss {
			out[i] = json.RawMessage(s)
		}
		return out
	}
	tests := []struct {
		name    string
		raws    []json.RawMessage
		field   string
		message string
	}{
		{name: "all answered", raws: raw(`1`, `"order-processor"`, `["REST API"]`)},
		{name: "too few", raws: raw(`1`, `"x"`), field: "answers", message: "answers: need 3 answers, one per question, got 2"},
		{name: "too many", raws: raw(`1`, `"x"`, `1`, `2`), field: "answers", message: "answers: need 3 answers, one per question, got 4"},
		{name: "none", raws: nil, field: "answers", message: "answers: need 3 answers, one per question, got 0"},
		{name: "one unanswered", raws: raw(`1`, `null`, `2`), field: "answers[1]", message: "answers[1]: not answered; every question needs an answer"},
		{name: "one blank", raws: raw(`1`, `"x"`, `"  "`), field: "answers[2]", message: "answers[2]: not answered; every question needs an answer"},
		{name: "second option for single-select", raws: raw(`["SQLite","MongoDB"]`, `"x"`, `1`), field: "answers[0]", message: "answers[0]: a single-select question takes one answer, got 2"},
		{name: "bad label in selected", raws: raw(`1`, `"x"`, `{"selected":[4]}`), field: "answers[2]", message: `answers[2]: selected[0]: "4" is not an option of this question`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeAnswers(qs, tc.raws)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(qs) {
					t.Fatalf("got %d answers", len(got))
				}
				for i, a := range got {
					if a.Question != qs[i].Question {
						t.Fatalf("answer %d is for %q", i, a.Question)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("want error on %s", tc.field)
			}
			if err.Code != CodeInvalidAnswer || err.Field != tc.field || err.Message != tc.message {
				t.Fatalf("got %+v\nwant field %q message %q", err, tc.field, tc.message)
			}
			if got != nil {
				t.Fatal("no answers may come back with an error: a request is answered atomically")
			}
		})
	}
	if _, err := NormalizeAnswers([]Question{nameQuestion}, raw(`"a"`, `"b"`)); err == nil || err.Message != "answers: need 1 answer, one per question, got 2" {
		t.Fatalf("singular: %v", err)
	}
}
