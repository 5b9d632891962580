package panecore

import (
	"bytes"
	"encoding/json"
	"sync/atomic"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// Text typed and not yet accepted is not lost when a surface closes (Ctrl-C,
// q, a closed terminal or tab): it goes to the daemon as the draft's
// "typing", beside the accepted answer. While the user types it waits for
// the face's Tick, TypingEvery after the last change (NextWake), so a typist
// makes a draft a second, not one a key (and an answer typed and accepted
// within the second makes none); closing sends what is left at once.

// draftsInFlight is the drafts on their way: the draft messages sent and
// not yet acknowledged, oldest first (the daemon answers a connection's
// messages in order), and the typing held back.
type draftsInFlight struct {
	sent        []*QState
	typingDue   bool // typing held back waits for the next Tick
	flushingAll bool // every draft goes now, typing included
	// held is the drafts held back, for a surface closed by a signal
	// while its UI may already be gone (SendHeld).
	held atomic.Pointer[[]socketproto.DraftRequest]
}

// noteTyping records what the open answer input holds, when that is not the
// accepted answer.
func (st *state) noteTyping() {
	if (st.mode != modeText && st.mode != modeLong) || st.edit.q == nil || !st.edit.typed {
		return
	}
	s := st.edit.q
	text := st.edit.text
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
// by the text being typed: it then waits for the next Tick, unless
// everything is being sent now.
func (d *draftsInFlight) typingLater(s *QState, v json.RawMessage) bool {
	if d.flushingAll || !onlyTypingDiffers(v, s.Known) {
		return false
	}
	d.typingDue = true
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

// flushAll sends every draft now, typing included.
func (st *state) flushAll() {
	st.drafts.flushingAll = true
	st.flushDrafts(st.m.Reqs...)
	st.drafts.flushingAll = false
}

// closing sends every draft now: the surface is closing.
func (st *state) closing() {
	st.touch()
	st.noteTyping()
	st.flushAll()
}

// tick is the face's wake: an expired notice goes, typing held back is sent.
func (st *state) tick() {
	st.touch()
	st.expireNotice()
	if st.drafts.typingDue {
		st.drafts.typingDue = false
		st.flushAll()
	}
}

// sendHeld sends the drafts held back, from any goroutine.
func (st *state) sendHeld() {
	held := st.drafts.held.Load()
	if held == nil {
		return
	}
	for _, d := range *held {
		_ = st.send.Send(d)
	}
}

// flushDrafts sends the daemon every answer of rs that differs from the
// draft it has (docs/contract.md §6 "Answers in progress are the daemon's"),
// one draft message per question changed.
func (st *state) flushDrafts(rs ...*Req) {
	var held []socketproto.DraftRequest
	defer func() { st.drafts.held.Store(&held) }()
	for i, r := range rs {
		if r == nil || r.Sending || st.m.Find(r.P.RequestID) != r || (i > 0 && rs[i-1] == r) {
			continue
		}
		for qi, s := range r.Qs {
			v := s.DraftValue()
			if s.sameAnswer(v, s.Known) {
				continue
			}
			d := socketproto.DraftRequest{RequestID: r.P.RequestID, Index: qi, Answer: v, Via: st.opt.Via}
			if st.drafts.typingLater(s, v) {
				held = append(held, d)
				continue
			}
			if err := st.send.Send(d); err != nil {
				// Kept here; sent with the next change, or after reconnecting.
				if st.hint == "" {
					st.hint = "Answer kept in this pane only (" + agenttext.Clean(err.Error(), false) + "); it goes to the daemon when it is back."
				}
				return
			}
			s.Known = v
			s.inflight++
			st.drafts.sent = append(st.drafts.sent, s)
		}
	}
}

// ack takes the daemon's ok or error for request id off the drafts
// waiting for one. An ok for an answer or cancel may take a draft's place:
// the request is leaving then, and its drafts no longer matter.
func (d *draftsInFlight) ack(id string) {
	for i, s := range d.sent {
		if s.reqID == id {
			s.inflight--
			d.sent = append(d.sent[:i], d.sent[i+1:]...)
			return
		}
	}
}

// forget drops the unacknowledged drafts of a request that left.
func (d *draftsInFlight) forget(r *Req) {
	out := d.sent[:0]
	for _, s := range d.sent {
		if s.reqID != r.P.RequestID {
			out = append(out, s)
		}
	}
	d.sent = out
}
