package views

import (
	"testing"

	"askuser/socketproto"
)

// The demo's typed form is a valid request: what the eyes-on check shows
// is what the daemon would accept.
func TestTypedDemoIsValid(t *testing.T) {
	t.Parallel()
	for _, p := range DemoRequests(testNow) {
		if p.RequestID != "demo-5" {
			continue
		}
		if e := socketproto.ValidateRequest(p.Request, socketproto.DefaultLimits()); e != nil {
			t.Fatal(e)
		}
		h := newH(t, 80, 24)
		h.Event(snap(p))
		h.Has("Workers", "Answer: a whole number from 1 to 16", "> 4")
		return
	}
	t.Fatal("no typed demo request")
}
