package pendingfile

import (
	"encoding/json"
	"testing"

	"askuser/socketproto"
)

// FuzzParse: no input makes Parse panic, and whatever parses survives a
// rewrite: Merge of it never resolves with a wrong answer count.
func FuzzParse(f *testing.F) {
	f.Add([]byte(Render([]socketproto.Pending{pending("req-1", dbQuestion, nameQuestion)})))
	f.Add([]byte(`{"requests":[{"requestId":"x","cancel":true}]}`))
	f.Add([]byte(`{"requests": [`))
	f.Add([]byte("{\"requests\": []}\n]}"))
	f.Add([]byte(`{"requests":[{"requestId":"x","questions":[{"question":"q","answer":"\u00e9"}]}],"requests":null}`))
	pend := []socketproto.Pending{pending("req-1", dbQuestion, nameQuestion), pending("x", featuresQuestion)}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		for _, a := range Merge(file, pend) {
			if a.Kind == Resolve {
				checkResolveCount(t, a, pend)
			}
		}
	})
}

// FuzzMerge: answers of any shape, for questions of every kind, never make
// Merge panic or resolve with a wrong count, and a draft it sets always has
// one valid JSON value per question.
func FuzzMerge(f *testing.F) {
	f.Add(`"SQLite"`, `"orders"`, `"Caching, logging"`, false)
	f.Add(`2`, `null`, `[1, 3, "typed"]`, false)
	f.Add(`["SQLite"]`, `""`, `{"selected":["Logging"],"notes":"n"}`, true)
	f.Add(`7`, `true`, `{"custom": 5}`, false)
	f.Add(`"  "`, `[]`, `"\u0007"`, false)
	pend := []socketproto.Pending{pending("a", dbQuestion, nameQuestion), pending("b", featuresQuestion)}
	f.Fuzz(func(t *testing.T, a0, a1, b0 string, cancel bool) {
		file := &File{Requests: []Request{renderRequest(pend[0]), renderRequest(pend[1])}}
		for i, raw := range []string{a0, a1} {
			if json.Valid([]byte(raw)) {
				file.Requests[0].Questions[i].Answer = json.RawMessage(raw)
			}
		}
		if json.Valid([]byte(b0)) {
			file.Requests[1].Questions[0].Answer = json.RawMessage(b0)
		}
		file.Requests[1].Cancel = cancel
		for _, a := range Merge(file, pend) {
			switch a.Kind {
			case Resolve:
				checkResolveCount(t, a, pend)
			case SetDraft:
				for _, p := range pend {
					if p.RequestID == a.RequestID && len(a.Draft) != len(p.Questions) {
						t.Errorf("draft of %d for %d questions", len(a.Draft), len(p.Questions))
					}
				}
				for _, d := range a.Draft {
					if !json.Valid(d) {
						t.Errorf("draft value %q is not JSON", d)
					}
				}
			}
		}
	})
}
