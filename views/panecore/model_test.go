package panecore

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"askuser/socketproto"
)

func TestModelOrderAndFocus(t *testing.T) {
	t.Parallel()
	at := func(id string, min int) socketproto.Pending {
		p := pending(id, dbQuestion())
		p.CreatedAt = testNow.Add(time.Duration(min) * time.Minute)
		return p
	}
	var m Model
	m.Add(at("b", 2))
	m.Add(at("c", 3))
	m.Add(at("a", 1)) // older than the rest: sorted in, focus stays
	if m.Focus != "b" {
		t.Fatalf("focus %q, want b (the first one added)", m.Focus)
	}
	var ids []string
	for _, r := range m.Reqs {
		ids = append(ids, r.P.RequestID)
	}
	if got := fmt.Sprint(ids); got != "[a b c]" {
		t.Fatalf("order %s", got)
	}
	m.Step(+1)
	if m.Focus != "c" {
		t.Fatalf("after ] focus %q", m.Focus)
	}
	m.Remove("c") // the last: focus falls back to the new last
	if m.Focus != "b" {
		t.Fatalf("after removing the focused last request: %q", m.Focus)
	}
	m.Step(-5)
	if m.Focus != "a" {
		t.Fatalf("after [ past the start: %q", m.Focus)
	}
	m.Remove("a") // the first: focus moves to the one that took its place
	if m.Focus != "b" {
		t.Fatalf("after removing the first: %q", m.Focus)
	}
	m.Remove("b")
	if m.Focus != "" || m.Focused() != nil {
		t.Fatalf("empty model focus %q", m.Focus)
	}
}

func TestWireAnswerForms(t *testing.T) {
	t.Parallel()
	single := NewQState(dbQuestion())
	single.Choice = 1
	ms := NewQState(multi(question("Q", "", "A", "B", "C")))
	ms.Checked[0], ms.Checked[2], ms.Checked[3] = true, true, true
	ms.Custom = "D"
	ms.Notes = "n"
	other := NewQState(dbQuestion())
	other.Choice = other.Other()
	other.Custom = "Cassandra"
	free := NewQState(nameQuestion())
	free.Custom = "svc"
	for _, c := range []struct {
		s    *QState
		want string
	}{
		{single, `{"selected":["SQLite"]}`},
		{ms, `{"custom":"D","notes":"n","selected":["A","C"]}`},
		{other, `{"custom":"Cassandra","selected":[]}`},
		{free, `{"custom":"svc","selected":[]}`},
	} {
		if got := string(c.s.WireAnswer()); got != c.want {
			t.Errorf("WireAnswer = %s, want %s", got, c.want)
		}
		// The shared normaliser takes every form the pane sends.
		if _, ok, err := socketproto.NormalizeAnswer(c.s.Q, json.RawMessage(c.s.WireAnswer())); err != nil || !ok {
			t.Errorf("NormalizeAnswer(%s): answered %v, %v", c.s.WireAnswer(), ok, err)
		}
	}
}

// Fixtures for the Go tests of the model; the scenarios have theirs in
// testdata/questions.

var testNow = scenarioEpoch

func question(text, header string, opts ...string) socketproto.Question {
	q := socketproto.Question{Question: text, Header: header}
	for _, o := range opts {
		q.Options = append(q.Options, socketproto.Option{Label: o})
	}
	return q
}

func multi(q socketproto.Question) socketproto.Question {
	t := true
	q.MultiSelect = &t
	return q
}

func dbQuestion() socketproto.Question {
	return question("Which database should we use?", "Database", "PostgreSQL (Recommended)", "SQLite", "MongoDB")
}

func nameQuestion() socketproto.Question {
	return question("What should we name this service?", "Service Name")
}

func pending(id string, qs ...socketproto.Question) socketproto.Pending {
	return socketproto.Pending{
		Request:   socketproto.Request{RequestID: id, Questions: qs},
		CreatedAt: testNow,
		Status:    socketproto.StatusWaiting,
		Draft:     make([]json.RawMessage, len(qs)),
	}
}
