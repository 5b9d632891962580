package views

import (
	"testing"

	"askuser/socketproto"
)

func TestEmptyState(t *testing.T) {
	h := newH(t, 80, 24)
	h.Has("askuser — nothing waiting", "No questions waiting", "/run/user/1000/askuser/askuserd.sock")
}

func TestSingleQuestionChooseWithEnter(t *testing.T) {
	h := newH(t, 80, 24)
	h.Event(socketproto.Snapshot{State: "waiting_for_user", Pending: []socketproto.Pending{pending("req-1", dbQuestion())}})
	h.Has("askuser — 1 waiting", "claude-main", "3m ago", "Database", "Which database should we use?",
		"> 1. PostgreSQL (Recommended)", "Battle-tested relational DB", "2. SQLite", "4. Other (type your answer)")
	h.Press("<Down>", "<Enter>")
	a := h.Answers("req-1")
	if len(a) != 1 || a[0]["selected"].([]any)[0] != "SQLite" {
		t.Fatalf("answers %v", a)
	}
	h.Has("Sending…")
	h.Event(socketproto.RequestResolved{RequestID: "req-1", Outcome: "answered", Via: "pane"})
	h.Has("Answer to req-1 sent.", "No questions waiting")
}
