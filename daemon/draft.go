package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"askuser/socketproto"
)

// draft records the answer given so far to one question (docs/contract.md §4 "draft").
// A pane sends one for every answer the user gives, so an answer in progress
// outlives the pane: it is journalled, written to the pending file and shown
// in every other pane (request_updated, from setDraft).
//
// The answer is checked with the same normaliser as a final answer, so a
// draft that could never be sent is refused now, with the reason, rather
// than kept and refused later. A blank one ("", {"selected":[]}) clears the
// draft, as it does in the pending file.
//
// A draft that chooses an option approving its preview (a permission
// prompt's Allow) needs no "previewDigest": it approves nothing. The digest
// is asked of the submission itself and never taken from a draft
// (socketproto.NormalizeAnswers; the pending file takes it from the saved
// buffer), so a drafted Allow cannot become an approval that skipped it.
func (s *state) draft(c *conn, m socketproto.DraftRequest) {
	r, e := s.lookup(m.RequestID)
	if e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	n := len(r.p.Questions)
	if m.Index < 0 || m.Index >= n {
		s.sendErr(c, m.RequestID, socketproto.Errf(socketproto.CodeInvalidAnswer, "index",
			"no question %d: request %q has %d (index from 0)", m.Index, m.RequestID, n))
		return
	}
	value := json.RawMessage("null")
	_, answered, err := socketproto.NormalizeAnswer(r.p.Questions[m.Index], m.Answer)
	var rule *socketproto.RuleError
	if errors.As(err, &rule) {
		// A typed answer still being written ("1" on its way to "12") may
		// break its rule for now: it is kept as a draft, as the pending
		// file keeps it, and only an answer is held to the rule.
		answered, err = true, nil
	}
	if err != nil {
		s.sendErr(c, m.RequestID, socketproto.Errf(socketproto.CodeInvalidAnswer, "answer",
			"question %d: %s", m.Index, err.Error()))
		return
	}
	// Text typed in a pane and not yet accepted, and boxes checked and not
	// confirmed, are kept too (they are no answer: NormalizeAnswer leaves
	// them out), so that closing the pane loses nothing and every pane
	// shows the same.
	if answered || strings.TrimSpace(socketproto.DraftTyping(m.Answer)) != "" || socketproto.DraftChecked(m.Answer) != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, m.Answer) == nil {
			value = buf.Bytes()
		}
	}
	draft := make([]json.RawMessage, n)
	copy(draft, r.p.Draft)
	draft[m.Index] = value
	if e := s.changeDraft(r, draft); e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	s.send(c, socketproto.OK{RequestID: m.RequestID})
}
