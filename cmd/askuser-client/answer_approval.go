package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"askuser/socketproto"
)

// confirmFunc shows the whole preview that option o of question i approves
// and asks the user whether to approve it.
type confirmFunc func(i int, q socketproto.Question, o socketproto.Option) (bool, error)

// approveAnswers gives every answer that chooses an option approving its
// preview (docs/contract.md §3 approvesPreview, §6 "Allow means seen") the
// digest of that preview, so the daemon takes it. The digest comes from
// what the user has seen: one given (an --answers object's
// "previewDigest", or --digest as askuser-client show printed it), or, on
// a terminal, the preview printed whole here and approved with y. Without
// either, or with a digest of some other text, nothing is sent.
func approveAnswers(p socketproto.Pending, answers []json.RawMessage, given []string, confirm confirmFunc) ([]json.RawMessage, error) {
	out := slices.Clone(answers)
	for i, raw := range answers {
		q := p.Questions[i]
		j := socketproto.ApprovingChoice(q, raw)
		if j < 0 {
			continue
		}
		o := q.Options[j]
		want := socketproto.PreviewDigest(o.Preview)
		if d, ok := objectDigest(raw); ok {
			if d != want {
				return nil, fmt.Errorf("answers[%d]: previewDigest is not the digest of the input %q approves; read it again with askuser-client show %s and answer from what it prints", i, flatText(o.Label), p.RequestID)
			}
			continue
		}
		switch {
		case slices.Contains(given, want):
		case len(given) > 0:
			gave := "--digest " + given[0] + " is not"
			if len(given) > 1 {
				gave = "none of the --digest values (" + strings.Join(given, ", ") + ") is"
			}
			return nil, fmt.Errorf("%s the digest of the input %q approves (answers[%d]): the input is not the one you read, or the digest was mistyped; read it again with askuser-client show %s and answer with the digest it prints", gave, flatText(o.Label), i, p.RequestID)
		case confirm == nil:
			return nil, fmt.Errorf("answers[%d] chooses %q, which approves an input not shown here: read it with askuser-client show %s, then answer with --digest and the digest it prints (on a terminal, answer shows the input and asks)", i, flatText(o.Label), p.RequestID)
		default:
			ok, err := confirm(i, q, o)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, notApproved{}
			}
		}
		out[i] = withDigest(raw, o.Label, want)
	}
	return out, nil
}

// notApproved: the user said no to an approval; nothing was sent.
type notApproved struct{}

func (notApproved) Error() string { return "not approved; nothing was sent" }

// objectDigest is the "previewDigest" of an answer in the object form.
func objectDigest(raw json.RawMessage) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj["previewDigest"] == nil {
		return "", false
	}
	var d string
	if json.Unmarshal(obj["previewDigest"], &d) != nil {
		return "", false
	}
	return d, true
}

// withDigest is raw with the digest of the preview it approves: an object
// keeps its other keys; a label, number or list (which on a single-select
// question, the only kind with approving options, can only have chosen
// that one option) becomes {"selected":[label]}.
func withDigest(raw json.RawMessage, label, digest string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		obj = map[string]json.RawMessage{}
		obj["selected"], _ = json.Marshal([]string{label})
	}
	obj["previewDigest"], _ = json.Marshal(digest)
	b, _ := json.Marshal(obj)
	return b
}

// terminalConfirm asks on the user's terminal: the whole preview on w,
// then "Approve all of the above? [y/N]", the answer read from r. Anything
// but y or yes is no.
func terminalConfirm(r io.Reader, w io.Writer) confirmFunc {
	br := bufio.NewReader(r)
	return func(i int, q socketproto.Question, o socketproto.Option) (bool, error) {
		writeIndented(w, fmt.Sprintf("%d. ", i+1), "   ", agentText(q.Question))
		fmt.Fprintf(w, "%q approves all of this (%s):\n", flatText(o.Label), lineCount(o.Preview))
		writePreview(w, "", o.Preview)
		fmt.Fprint(w, "Approve all of the above? [y/N] ")
		line, err := br.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(w)
			return false, nil
		}
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes", nil
	}
}
