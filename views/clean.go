package views

import (
	"askuser/socketproto"
	"askuser/views/panecore"
)

// Clean makes text that came from an agent safe to put on a terminal (see
// panecore.Clean, where it lives so that every surface cleans alike).
func Clean(s string, keepNewlines bool) string { return panecore.Clean(s, keepNewlines) }

// CleanTyped cleans text the user typed or pasted (see panecore.CleanTyped).
func CleanTyped(s string) string { return panecore.CleanTyped(s) }

// QState is one question's answer in progress; it lives in panecore.
type QState = panecore.QState

// NewQState starts a question with nothing chosen (panecore.NewQState).
func NewQState(q socketproto.Question) *QState { return panecore.NewQState(q) }
