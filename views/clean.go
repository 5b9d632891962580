package views

import "askuser/socketproto/agenttext"

// Clean is agenttext.Clean: agent text is shown one way on every surface.
func Clean(s string, keepNewlines bool) string { return agenttext.Clean(s, keepNewlines) }

// CleanTyped is agenttext.Typed: what the user pasted, tidied before it is sent.
func CleanTyped(s string) string { return agenttext.Typed(s) }
