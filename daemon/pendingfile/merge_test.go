package pendingfile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"askuser/socketproto"
)

// fileOf builds a saved file: for each request id, the answers of its
// questions in the pending request's order (raw JSON, "" for null).
func fileOf(t *testing.T, pend []socketproto.Pending, answers map[string][]string) *File {
	t.Helper()
	f := &File{Instructions: Instructions}
	for i, p := range pend {
		raws, ok := answers[p.RequestID]
		if !ok {
			continue
		}
		r := renderRequest(p)
		r.At = fmt.Sprintf("line %d, column 5", 3+i)
		for j := range r.Questions {
			if j < len(raws) && raws[j] != "" {
				r.Questions[j].Answer = json.RawMessage(raws[j])
			}
		}
		f.Requests = append(f.Requests, r)
	}
	return f
}

func kinds(acts []Action) string {
	var out []string
	for _, a := range acts {
		out = append(out, a.Kind.String()+":"+a.RequestID)
	}
	return strings.Join(out, " ")
}

func TestMerge(t *testing.T) {
	two := []socketproto.Pending{pending("a", dbQuestion, nameQuestion), pending("b", featuresQuestion)}
	drafted := []socketproto.Pending{pending("a", dbQuestion, nameQuestion)}
	drafted[0].Draft = []json.RawMessage{json.RawMessage(`"SQLite"`), nil}

	for _, tc := range []struct {
		name    string
		pending []socketproto.Pending
		file    func(t *testing.T) *File
		want    string // kinds and ids, in order
		check   func(t *testing.T, acts []Action)
	}{
		{"all answered by label resolves", two,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"a": {`"SQLite"`, `"orders"`}})
			}, "resolve:a",
			func(t *testing.T, acts []Action) {
				a := acts[0].Answers
				if len(a) != 2 || a[0].SelectedOption != "SQLite" || a[1].Answer.Text != "orders" || !a[1].WasCustom {
					t.Errorf("answers %+v", a)
				}
			}},
		{"option number, case-insensitive label and a comma list", two,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"a": {`1`, `"x"`}, "b": {`"caching, authentication"`}})
			}, "resolve:a resolve:b",
			func(t *testing.T, acts []Action) {
				if got := acts[0].Answers[0].SelectedOption; got != "PostgreSQL (Recommended)" {
					t.Errorf("option 1 chose %q", got)
				}
				if got := acts[1].Answers[0].SelectedOptions; len(got) != 2 || got[0] != "Authentication" || got[1] != "Caching" {
					t.Errorf("multiSelect chose %q", got)
				}
			}},
		{"partly answered becomes a draft", two,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"a": {"", `"orders  service"`}})
			}, "draft:a",
			func(t *testing.T, acts []Action) {
				if d := acts[0].Draft; len(d) != 2 || string(d[0]) != "null" || string(d[1]) != `"orders  service"` {
					t.Errorf("draft %s", d)
				}
			}},
		{"the same draft again changes nothing", drafted,
			func(t *testing.T) *File {
				return fileOf(t, drafted, map[string][]string{"a": {`  "SQLite" `}})
			}, "", nil},
		{"clearing a draft answer", drafted,
			func(t *testing.T) *File {
				return fileOf(t, drafted, map[string][]string{"a": {`"   "`}})
			}, "draft:a",
			func(t *testing.T, acts []Action) {
				if d := acts[0].Draft; string(d[0]) != "null" || string(d[1]) != "null" {
					t.Errorf("draft %s", d)
				}
			}},
		{"cancel wins over answers", two,
			func(t *testing.T) *File {
				f := fileOf(t, two, map[string][]string{"a": {`"SQLite"`, `"x"`}})
				f.Requests[0].Cancel = true
				return f
			}, "cancel:a", nil},
		{"unknown id is reported with its line", two,
			func(t *testing.T) *File {
				f := fileOf(t, two, map[string][]string{"a": {`"SQLite"`}})
				f.Requests[0].RequestID = "gone"
				return f
			}, "report:gone",
			func(t *testing.T, acts []Action) {
				if want := `line 3, column 5: request "gone" is not waiting`; !strings.HasPrefix(acts[0].Error, want) {
					t.Errorf("report %q, want it to start %q", acts[0].Error, want)
				}
			}},
		{"a request twice: the first entry counts", two,
			func(t *testing.T) *File {
				f := fileOf(t, two, map[string][]string{"a": {`"SQLite"`, `"x"`}})
				f.Requests = append(f.Requests, f.Requests[0])
				return f
			}, "resolve:a report:a", nil},
		{"a list for a single-select is reported and kept as draft", two,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"a": {`["SQLite", "MongoDB"]`, `"x"`}})
			}, "report:a draft:a",
			func(t *testing.T, acts []Action) {
				if !strings.Contains(acts[0].Error, "questions[0].answer") {
					t.Errorf("report %q does not name the answer", acts[0].Error)
				}
				if d := acts[1].Draft; string(d[0]) != `["SQLite","MongoDB"]` || string(d[1]) != `"x"` {
					t.Errorf("draft %s", d)
				}
			}},
		{"an answer that cannot stand is reported and kept as a draft", two,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"a": {`["SQLite", "MongoDB"]`, ""}})
			}, "report:a draft:a", nil},
		{"questions matched by text, not position", two,
			func(t *testing.T) *File {
				f := fileOf(t, two, map[string][]string{"a": {`"SQLite"`, `"orders"`}})
				q := f.Requests[0].Questions
				q[0], q[1] = q[1], q[0]
				return f
			}, "resolve:a",
			func(t *testing.T, acts []Action) {
				if acts[0].Answers[0].SelectedOption != "SQLite" || acts[0].Answers[1].Answer.Text != "orders" {
					t.Errorf("answers %+v", acts[0].Answers)
				}
			}},
		{"an edited question text is reported, its answer not used", two,
			func(t *testing.T) *File {
				f := fileOf(t, two, map[string][]string{"a": {`"SQLite"`, `"orders"`}})
				f.Requests[0].Questions[1].Question = "What should we call it?"
				return f
			}, "report:a draft:a", nil},
		{"a question deleted from the file keeps its draft", drafted,
			func(t *testing.T) *File {
				f := fileOf(t, drafted, map[string][]string{"a": {"", `"orders"`}})
				f.Requests[0].Questions = f.Requests[0].Questions[1:]
				return f
			}, "resolve:a",
			func(t *testing.T, acts []Action) {
				if acts[0].Answers[0].SelectedOption != "SQLite" {
					t.Errorf("answers %+v", acts[0].Answers)
				}
			}},
		{"a request missing from the file is left alone", two,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"b": {`"Logging"`}})
			}, "resolve:b", nil},
		{"an object answer with notes", two,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"b": {`{"selected": ["Logging"], "custom": "metrics", "notes": "keep it small"}`}})
			}, "resolve:b",
			func(t *testing.T, acts []Action) {
				a := acts[0].Answers[0]
				if a.Notes != "keep it small" || a.Custom != "metrics" || !a.WasCustom {
					t.Errorf("answer %+v", a)
				}
			}},
		{"nothing pending", nil,
			func(t *testing.T) *File {
				return fileOf(t, two, map[string][]string{"a": {`1`}, "b": {`1`}})
			}, "report:a report:b",
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acts := Merge(tc.file(t), tc.pending)
			if got := kinds(acts); got != tc.want {
				t.Fatalf("actions %q, want %q\n%+v", got, tc.want, acts)
			}
			for _, a := range acts {
				if a.Kind == Resolve {
					checkResolveCount(t, a, tc.pending)
				}
			}
			if tc.check != nil {
				tc.check(t, acts)
			}
		})
	}
}

func checkResolveCount(t *testing.T, a Action, pend []socketproto.Pending) {
	t.Helper()
	for _, p := range pend {
		if p.RequestID == a.RequestID {
			if len(a.Answers) != len(p.Questions) {
				t.Errorf("resolve %s with %d answers for %d questions", a.RequestID, len(a.Answers), len(p.Questions))
			}
			return
		}
	}
	t.Errorf("resolve of %s, which is not pending", a.RequestID)
}

// TestChoicesIgnoredOnRead: "choices" is for reading only. A save whose
// choices were edited, emptied, deleted, given a wrong type or added where
// there were none parses without error and asks nothing of the queue: no
// answer, no draft, no report. Answers by number still count the options,
// not whatever "choices" says.
func TestChoicesIgnoredOnRead(t *testing.T) {
	drafted := pending("a", dbQuestion, nameQuestion)
	drafted.Draft = []json.RawMessage{json.RawMessage(`"SQLite"`), nil}
	pend := []socketproto.Pending{drafted, pending("b", featuresQuestion)}
	rendered := string(Render(pend))
	choices := regexp.MustCompile(`"choices": \[[^\]]*\]`)
	if n := len(choices.FindAllString(rendered, -1)); n != 2 {
		t.Fatalf("%d \"choices\" in the rendered file, want 2:\n%s", n, rendered)
	}
	withChoices := func(v string) func(string) string {
		return func(s string) string { return choices.ReplaceAllLiteralString(s, `"choices": `+v) }
	}
	answer := func(question, raw string) func(string) string {
		return func(s string) string {
			i := strings.Index(s, `"question": "`+question+`"`)
			j := i + strings.Index(s[i:], `"answer": null`)
			if i < 0 || j < i {
				t.Fatalf("no unanswered %q in\n%s", question, s)
			}
			return s[:j] + `"answer": ` + raw + s[j+len(`"answer": null`):]
		}
	}
	edits := []struct {
		name string
		edit func(string) string
	}{
		{"edited", func(s string) string {
			s = strings.Replace(s, `"2. SQLite — Lightweight, file-based"`, `"2. Redis — picked this one"`, 1)
			return strings.Replace(s, `"1. Authentication"`, `"1. Logging", "4. Something new"`, 1)
		}},
		{"emptied", withChoices(`[]`)},
		{"deleted", func(s string) string {
			return regexp.MustCompile(`\n *"choices": \[[^\]]*\],`).ReplaceAllLiteralString(s, "")
		}},
		{"a number", withChoices(`7`)},
		{"null", withChoices(`null`)},
		{"a string", withChoices(`"1. SQLite"`)},
		{"an object", withChoices(`{"1": "MongoDB", "nested": [true, {"x": null}]}`)},
		{"a list of numbers", withChoices(`[3, 2, 1]`)},
		{"added to a free-text question", func(s string) string {
			return strings.Replace(s, `"question": "What should we name this service?",`,
				`"question": "What should we name this service?", "choices": ["1. orders"],`, 1)
		}},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			saved := e.edit(rendered)
			if saved == rendered {
				t.Fatal("the edit changed nothing")
			}
			f, err := Parse([]byte(saved))
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, saved)
			}
			if acts := Merge(f, pend); len(acts) != 0 {
				t.Errorf("a save that changes only \"choices\" asks %q: %+v", kinds(acts), acts)
			}
			// The same save with answers by number: the numbers are the
			// options', whatever "choices" now says.
			answered := answer("Which features?", `[1, 3]`)(answer("What should we name this service?", `"orders"`)(saved))
			answered = strings.Replace(answered, `"answer": "SQLite"`, `"answer": 3`, 1)
			f, err = Parse([]byte(answered))
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, answered)
			}
			acts := Merge(f, pend)
			if got := kinds(acts); got != "resolve:a resolve:b" {
				t.Fatalf("answered by number: %q, want resolve:a resolve:b\n%+v", got, acts)
			}
			if got := acts[0].Answers[0].SelectedOption; got != "MongoDB" {
				t.Errorf("3 chose %q, want MongoDB", got)
			}
			if got := acts[1].Answers[0].SelectedOptions; len(got) != 2 || got[0] != "Authentication" || got[1] != "Logging" {
				t.Errorf("[1, 3] chose %q, want Authentication and Logging", got)
			}
		})
	}
}

// A save whose revision is forgotten is merged against the newest state;
// then the daemon's own old drafts in it, and answers left empty, are not
// the user's edits (they would send, or clear, what nobody answered). What
// the daemon never wrote there is.
func TestMergeWithUnknownBase(t *testing.T) {
	r := pending("r", dbQuestion)
	r.Draft = []json.RawMessage{json.RawMessage(`"MongoDB"`)} // the newest draft
	s := pending("s", dbQuestion)
	s.Draft = []json.RawMessage{json.RawMessage(`"SQLite"`)}
	written := map[string]bool{`r "SQLite"`: true, `s "SQLite"`: true}
	wrote := func(id string, i int, raw json.RawMessage) bool {
		return i == 0 && written[id+" "+string(compact(raw))]
	}
	save := func(r, s string) *File {
		f, err := Parse([]byte(`{"revision": 3, "requests": [` +
			`{"requestId": "r", "questions": [{"question": "Which database should we use?", "answer": ` + r + `}]},` +
			`{"requestId": "s", "questions": [{"question": "Which database should we use?", "answer": ` + s + `}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	pend := []socketproto.Pending{r, s}
	for _, tc := range []struct {
		name, r, s string
		want       []string
	}{
		{"an old draft and an emptied one: nothing", `"SQLite"`, `null`, nil},
		{"an old draft, and a new answer", `"SQLite"`, `"PostgreSQL (Recommended)"`, []string{"resolve s"}},
		{"a value the daemon never wrote is an answer", `2`, `"  "`, []string{"resolve r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, a := range (Save{File: save(tc.r, tc.s), Wrote: wrote}).Merge(pend) {
				got = append(got, a.Kind.String()+" "+a.RequestID)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("actions %v, want %v", got, tc.want)
			}
		})
	}
	// Without what the daemon wrote (a lost ledger), the old behaviour:
	// the old draft counts as an edit.
	if acts := Merge(save(`"SQLite"`, `null`), pend); len(acts) == 0 {
		t.Error("Merge without Wrote took nothing from a save that differs from the newest state")
	}
}
