package views

import (
	"encoding/json"
	"fmt"
	"strings"
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

func TestWrapKeepsEveryCharacter(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "short", "a much longer line that has to wrap somewhere", "supercalifragilisticexpialidocious", "データベースを選んでください。データベース", "tab\tand\nnewline"} {
		for w := 2; w < 20; w++ { // from 2: a wide character needs two cells
			joined := ""
			for _, l := range wrap(Clean(s, true), w) {
				if width(l) > w {
					t.Fatalf("wrap(%q, %d): line %q is %d wide", s, w, l, width(l))
				}
				joined += l
			}
			want := strings.NewReplacer(" ", "", "\n", "").Replace(Clean(s, true))
			if strings.ReplaceAll(joined, " ", "") != want {
				t.Fatalf("wrap(%q, %d) lost text: %q", s, w, joined)
			}
		}
	}
}
