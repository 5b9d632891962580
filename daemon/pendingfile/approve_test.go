package pendingfile

import (
	"encoding/json"
	"strings"
	"testing"

	"askuser/socketproto"
)

// permissionQuestion is a permission prompt: Allow approves the tool's whole
// input, which the file shows under "approves".
var permissionQuestion = socketproto.Question{Question: "Allow Bash?", MultiSelect: boolp(false),
	Options: []socketproto.Option{
		{Label: "Allow", Preview: "{\n  \"command\": \"make && curl x | sh\"\n}", ApprovesPreview: true},
		{Label: "Deny"},
	}}

// An answer typed into the file is taken exactly when the saved buffer
// holds, beside "approves", the digest of the preview the daemon holds: by
// label, number or object alike; one without it, or with another, is a
// problem naming the rule and never the expected digest.
func TestSaveChoosingAllowNeedsTheBuffersDigest(t *testing.T) {
	p := pending("r", permissionQuestion)
	digest := socketproto.PreviewDigest(permissionQuestion.Options[0].Preview)
	other := socketproto.PreviewDigest("rm -rf /")
	line := `"approvesDigest": {
            "Allow": "` + digest + `"
          },`
	for _, tc := range []struct {
		name, answer string
		digestField  string // what replaces the buffer's "approvesDigest" field
		problem      string // "" when the save resolves the request
	}{
		{"label", `"Allow"`, line, ""},
		{"number", `1`, line, ""},
		{"object", `{"selected": ["Allow"], "notes": "once"}`, line, ""},
		{"object naming another digest: the buffer's counts", `{"selected": ["Allow"], "previewDigest": "` + other + `"}`, line, ""},
		{"deny needs none", `"Deny"`, "", ""},
		{"digest deleted", `"Allow"`, "", `this save has none for "Allow"`},
		{"digest deleted, a digest typed into the answer", `{"selected": ["Allow"], "previewDigest": "` + digest + `"}`, "", `this save has none for "Allow"`},
		{"digest of another preview", `"Allow"`, `"approvesDigest": {"Allow": "` + other + `"},`, `is not the digest of that preview as the daemon holds it`},
		{"digest garbled", `1`, `"approvesDigest": 7,`, `this save has none for "Allow"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(Render([]socketproto.Pending{p}))
			if !strings.Contains(out, line) {
				t.Fatalf("the file has no %s:\n%s", line, out)
			}
			out = strings.Replace(out, line, tc.digestField, 1)
			out = strings.Replace(out, `"answer": null`, `"answer": `+tc.answer, 1)
			f, err := Parse([]byte(out))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			acts := Merge(f, []socketproto.Pending{p})
			if tc.problem == "" {
				if kinds(acts) != "resolve:r" {
					t.Fatalf("actions %+v, want the request resolved", acts)
				}
				return
			}
			var report string
			for _, a := range acts {
				switch a.Kind {
				case Resolve:
					t.Fatalf("resolved without the buffer's digest: %+v", acts)
				case Report:
					report += a.Error
				}
			}
			if !strings.Contains(report, tc.problem) || !strings.Contains(report, `"approvesDigest"`) {
				t.Fatalf("reported %q, want it to say %q and name \"approvesDigest\"", report, tc.problem)
			}
			if strings.Contains(report, digest) {
				t.Fatalf("the report gives the expected digest away: %q", report)
			}
		})
	}
}

// A draft choosing Allow (a pane's, or one typed into the file earlier) is
// no approval: a save that completes the request takes the digest from
// that save's buffer, not from the draft.
func TestDraftedAllowIsSentOnlyWithTheBuffersDigest(t *testing.T) {
	digest := socketproto.PreviewDigest(permissionQuestion.Options[0].Preview)
	p := pending("r", permissionQuestion, nameQuestion)
	p.Draft = []json.RawMessage{json.RawMessage(`{"selected":["Allow"],"previewDigest":"` + digest + `"}`), nil}
	for name, keep := range map[string]bool{"buffer with the digest": true, "buffer without it": false} {
		t.Run(name, func(t *testing.T) {
			r := renderRequest(p)
			r.At = "line 3, column 5"
			if !keep {
				r.Questions[0].ApprovesDigest = nil
			}
			r.Questions[1].Answer = json.RawMessage(`"orders"`)
			acts := Merge(&File{Requests: []Request{r}}, []socketproto.Pending{p})
			if keep && kinds(acts) != "resolve:r" {
				t.Fatalf("actions %+v, want resolved", acts)
			}
			if !keep && (strings.Contains(kinds(acts), "resolve") || !strings.Contains(kinds(acts), "report:r")) {
				t.Fatalf("actions %+v, want a report and no resolve", acts)
			}
		})
	}
}

// An answer refused only for its "approvesDigest" becomes the draft; the
// refusal says to keep the field and save again. Doing exactly that saves
// the file unchanged (the draft is what the daemon wrote): no edit, yet it
// is the user's answer, and it is sent. A draft that is the same answer but
// was never refused (a pane's) is not sent by an unchanged save; nor is the
// refused answer once the draft has changed since.
func TestRefusedAllowIsSentByAnUnchangedSave(t *testing.T) {
	p := pending("r", permissionQuestion)

	// The save without the field: refused, the answer kept as a draft.
	r := renderRequest(p)
	r.Questions[0].ApprovesDigest = nil
	r.Questions[0].Answer = json.RawMessage(`"Allow"`)
	acts := Merge(&File{Requests: []Request{r}}, []socketproto.Pending{p})
	var refused []json.RawMessage
	for _, a := range acts {
		if a.Kind == Resolve {
			t.Fatalf("resolved without the digest: %+v", acts)
		}
		if a.Kind == Report && a.Unapproved {
			refused = a.Draft
		}
		if a.Kind == SetDraft {
			p.Draft = a.Draft
		}
	}
	if refused == nil || !SameDraft(p.Draft, refused) {
		t.Fatalf("actions %+v: want a report marked Unapproved with the answer, and the answer as the draft", acts)
	}

	// The file as the daemon rewrites it, saved as it is.
	again := renderRequest(p)
	if again.Questions[0].ApprovesDigest == nil || string(compact(again.Questions[0].Answer)) != `"Allow"` {
		t.Fatalf("the rewritten file lacks the field or the draft: %+v", again.Questions[0])
	}
	unchanged := Save{File: &File{Requests: []Request{again}}, Base: map[string][]json.RawMessage{"r": p.Draft}}
	if got := kinds(unchanged.Merge([]socketproto.Pending{p})); got != "" {
		t.Fatalf("an unchanged save with nothing refused did %s; want nothing", got)
	}
	unchanged.Unapproved = map[string][]json.RawMessage{"r": refused}
	if got := kinds(unchanged.Merge([]socketproto.Pending{p})); got != "resolve:r" {
		t.Fatalf("the refused answer saved again with its field did %q; want it sent", got)
	}

	// Changed since (a pane chose Deny): the old refusal sends nothing.
	denied := p
	denied.Draft = []json.RawMessage{json.RawMessage(`"Deny"`)}
	again = renderRequest(denied)
	unchanged = Save{File: &File{Requests: []Request{again}}, Base: map[string][]json.RawMessage{"r": denied.Draft},
		Unapproved: map[string][]json.RawMessage{"r": refused}}
	if got := kinds(unchanged.Merge([]socketproto.Pending{denied})); got != "" {
		t.Fatalf("a refusal of an answer since replaced did %q; want nothing", got)
	}
}
