package daemon

// waitSet is the requests one connection waits for, by id. Nearly every
// connection waits for exactly one (an agent for its own question), which
// it holds in a field: a map for it would cost 200 bytes more per waiting
// agent. A client that waits for several gets a map for the others.
type waitSet struct {
	first *request
	more  map[string]*request
}

func (w *waitSet) add(r *request) {
	id := r.p.RequestID
	switch {
	case w.first != nil && w.first.p.RequestID == id:
		w.first = r
	case w.first == nil && w.more[id] == nil:
		w.first = r
	default:
		if w.more == nil {
			w.more = map[string]*request{}
		}
		w.more[id] = r
	}
}

func (w *waitSet) remove(id string) {
	if w.first != nil && w.first.p.RequestID == id {
		w.first = nil
		return
	}
	delete(w.more, id)
}

func (w *waitSet) has(id string) bool {
	return (w.first != nil && w.first.p.RequestID == id) || w.more[id] != nil
}

func (w *waitSet) len() int {
	n := len(w.more)
	if w.first != nil {
		n++
	}
	return n
}

// all is every request in the set.
func (w *waitSet) all() []*request {
	out := make([]*request, 0, w.len())
	if w.first != nil {
		out = append(out, w.first)
	}
	for _, r := range w.more {
		out = append(out, r)
	}
	return out
}
