package views

import (
	"askuser/socketproto"
	"askuser/socketproto/agenttext"
	"askuser/views/panecore"
)

// Clean is agenttext.Clean: agent text is shown one way on every surface.
func Clean(s string, keepNewlines bool) string { return agenttext.Clean(s, keepNewlines) }

// CleanTyped is agenttext.Typed: what the user pasted, tidied before it is sent.
func CleanTyped(s string) string { return agenttext.Typed(s) }

// QState is one question's answer in progress; it lives in panecore.
type QState = panecore.QState

// NewQState starts a question with nothing chosen (panecore.NewQState).
func NewQState(q socketproto.Question) *QState { return panecore.NewQState(q) }
