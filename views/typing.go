package views

import (
	"bytes"
	"encoding/json"
	"time"

	"askuser/socketproto"
)

// Text typed and not yet accepted is not lost when the pane closes (Ctrl-C,
// q, a closed terminal): it goes to the daemon as the draft's "typing",
// beside the accepted answer. While the user types it is sent on the pane's
// wake typingEvery after a change, so a typist makes a draft a second, not
// one a key (and an answer typed and accepted within the second makes
// none); quitting sends what is left at once.
const typingEvery = time.Second

// noteTyping records what the open answer input holds, when that is not the
// accepted answer.
func (p *Pane) noteTyping() {
	if (p.mode != modeText && p.mode != modeLong) || p.editQ == nil || !p.typed {
		return
	}
	s := p.editQ
	text := p.input.GetText()
	if text == s.acceptedText() {
		text = ""
	}
	s.Typing = text
}

// inputText is what the answer input opens with: the text typed and not
// accepted, else the accepted typed answer.
func (s *QState) inputText() string {
	if s.Typing != "" {
		return s.Typing
	}
	return s.Custom
}

// acceptedText is the typed text the accepted answer holds, "" when none.
func (s *QState) acceptedText() string {
	switch {
	case !s.Answered && !(s.Q.IsMulti() && s.Checked[s.Other()]):
		return ""
	case !s.HasOptions(), s.Q.IsMulti() && s.Checked[s.Other()], !s.Q.IsMulti() && s.Choice == s.Other():
		return s.Custom
	}
	return ""
}

// typingLater reports whether draft v of s differs from the daemon's only
// by the text being typed: it then waits for the pane's next wake (tick),
// unless the pane is sending everything now.
func (p *Pane) typingLater(s *QState, v json.RawMessage) bool {
	if p.flushingAll || !onlyTypingDiffers(v, s.Known) {
		return false
	}
	p.typingDue = true
	return true
}

// onlyTypingDiffers reports whether drafts a and b are the same apart from
// their "typing".
func onlyTypingDiffers(a, b json.RawMessage) bool {
	if socketproto.DraftTyping(a) == socketproto.DraftTyping(b) {
		return false
	}
	return bytes.Equal(withoutTyping(a), withoutTyping(b))
}

func withoutTyping(raw json.RawMessage) []byte {
	if !filled(raw) {
		return []byte("null")
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return raw
	}
	delete(obj, "typing")
	if len(obj) == 0 {
		return []byte("null")
	}
	b, _ := json.Marshal(obj)
	return b
}

// flushTyping sends every draft now, typing included: the pane is closing.
func (p *Pane) flushTyping() {
	p.noteTyping()
	p.flushingAll = true
	p.flushDrafts(p.M.Reqs...)
	p.flushingAll = false
}

// tick runs on the pane's wake: typing held back is sent.
func (p *Pane) tick() {
	if p.typingDue {
		p.typingDue = false
		p.flushingAll = true
		p.flushDrafts(p.M.Reqs...)
		p.flushingAll = false
	}
}

// sendHeldTyping sends the drafts held back, from any goroutine: a pane
// closed by a signal (its terminal gone) may have no UI left to do it.
func (p *Pane) sendHeldTyping() {
	held := p.heldTyping.Load()
	if held == nil {
		return
	}
	for _, d := range *held {
		_ = p.send.Send(d)
	}
}
