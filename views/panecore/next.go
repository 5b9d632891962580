package panecore

import "strings"

// Next is the one button under a question on a face without keys (the web
// page's Send or Next): it takes the question as it shows. A single-select
// question is answered with the item at the cursor (as Choose); a
// multi-select one with the boxes as they are checked (none checked asks
// "none of these?" first; Other checked and empty opens its input); the
// open answer or note input is accepted first; on the Submit tab it
// submits. Guarded like every action that answers.
const Next Kind = "next"

// next applies Next to the request and question on screen (or those of
// the open input).
func (st *state) next() {
	switch st.mode {
	case modeText, modeNote:
		note := st.mode == modeNote
		multi := st.edit.q != nil && st.edit.q.Q.IsMulti()
		st.finishEdit(true)
		// An accepted note, or Other's text on a multi-select list, leaves
		// the question itself to be taken: on, as one press of the button.
		if st.refused != nil || st.mode != modeList || !(note || multi) {
			return
		}
	case modeFilter:
		st.finishEdit(true)
	}
	r, s := st.context()
	if r == nil {
		return
	}
	switch {
	case s == nil:
		if r.OnSubmit() {
			st.submit(r)
		}
	case !s.HasOptions():
		st.startEdit(modeText) // a free-text question's input, accepted as it is
		st.finishEdit(true)
	case s.Q.IsMulti():
		switch {
		case !anyChecked(s):
			st.mode = modeNone
		case s.Checked[s.Other()] && strings.TrimSpace(s.Custom) == "":
			s.Cursor = s.Other()
			st.startEdit(modeText)
		default:
			s.Answered = true
			st.advance(r)
		}
	default:
		st.choose(r, s, s.Cursor)
	}
}
