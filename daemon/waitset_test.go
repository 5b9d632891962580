package daemon

import (
	"slices"
	"testing"
)

// TestWaitSet: the set answers as a map would, whichever of its requests is
// held in the field and whichever in the map.
func TestWaitSet(t *testing.T) {
	req := func(id string) *request { r := &request{}; r.p.RequestID = id; return r }
	ids := func(w *waitSet) []string {
		var out []string
		for _, r := range w.all() {
			out = append(out, r.p.RequestID)
		}
		slices.Sort(out)
		return out
	}
	var w waitSet
	a, b, c := req("a"), req("b"), req("c")
	w.add(a)
	w.add(b)
	w.add(c)
	if got := ids(&w); !slices.Equal(got, []string{"a", "b", "c"}) || w.len() != 3 {
		t.Fatalf("after adding a, b, c: %q (len %d)", got, w.len())
	}
	w.remove("a")
	if w.has("a") || !w.has("b") || !w.has("c") || w.len() != 2 {
		t.Fatalf("after removing a: %q (len %d)", ids(&w), w.len())
	}
	// The field is free again; b, in the map, must not be added twice.
	w.add(b)
	if got := ids(&w); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("after adding b again: %q", got)
	}
	b2 := req("b")
	w.add(b2)
	for _, r := range w.all() {
		if r.p.RequestID == "b" && r != b2 {
			t.Fatalf("adding another request under id b kept the old one")
		}
	}
	w.remove("b")
	w.remove("c")
	w.remove("nothing")
	if w.len() != 0 || len(w.all()) != 0 || w.has("b") {
		t.Fatalf("after removing everything: %q (len %d)", ids(&w), w.len())
	}
}
