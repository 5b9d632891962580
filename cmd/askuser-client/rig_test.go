package main

import (
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// parkingDaemon starts an in-process daemon and returns its socket and a
// park that asks req without waiting and returns once the daemon has added
// it: the waiting request a command under test then reads or answers.
func parkingDaemon(t *testing.T) (sock string, park func(req socketproto.Request)) {
	t.Helper()
	sock = inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	noWait := false
	return sock, func(req socketproto.Request) {
		t.Helper()
		if err := c.Send(socketproto.AskUserRequest{Wait: &noWait, Request: req}); err != nil {
			t.Fatal(err)
		}
		watch("request_added")
	}
}
