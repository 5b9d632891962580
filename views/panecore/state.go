package panecore

import (
	"time"

	"askuser/socketproto"
)

// state is the core's insides (filled in by the files beside it).
type state struct {
	send Sender
	opt  Options
}

func (st *state) init(s Sender, opt Options)                               { st.send, st.opt = s, opt }
func (st *state) event(msg socketproto.Message)                            {}
func (st *state) do(a Action) *Refusal                                     { return nil }
func (st *state) refusal(a Action) *Refusal                                { return nil }
func (st *state) previewShown(req string, q, opt, w, top, rows, total int) {}
func (st *state) view() View                                               { return View{Focus: -1} }
func (st *state) nextWake() time.Duration                                  { return 0 }
func (st *state) tick()                                                    {}
func (st *state) closing()                                                 {}
func (st *state) sendHeld()                                                {}
