package main

import (
	"strings"
	"testing"
)

// The client's responses reach the server only for requests it was sent,
// once each; a batch keeps its other messages.
func TestRelayDropsResponsesToRequestsNotSent(t *testing.T) {
	t.Parallel()
	r, _, toServer := testRelay(nil)
	stderr := &syncBuffer{}
	r.stderr = stderr
	if err := r.fromServer(t.Context(), strings.NewReader(
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n"+
			`[{"jsonrpc":"2.0","id":"r","method":"roots/list"}]`+"\n")); err != nil {
		t.Fatal(err)
	}
	in := []string{
		`{"jsonrpc":"2.0","id":7,"result":{}}`,           // sent: relayed
		`{"jsonrpc":"2.0","id":7,"result":{}}`,           // answered already: dropped
		`{"jsonrpc":"2.0","id":"7","result":{}}`,         // a string is another id: dropped
		`{"jsonrpc":"2.0","id":8,"error":{"code":1}}`,    // never sent: dropped
		`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, // the client's own request: relayed
		`[{"jsonrpc":"2.0","id":"r","result":{"roots":[]}},{"jsonrpc":"2.0","id":9,"result":{}}]`,
	}
	if err := r.fromClient(strings.NewReader(strings.Join(in, "\n")+"\n"), make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	want := in[0] + "\n" + in[4] + "\n" + `[{"jsonrpc":"2.0","id":"r","result":{"roots":[]}}]` + "\n"
	if toServer.String() != want {
		t.Errorf("to the server:\n%s\nwant\n%s", toServer, want)
	}
	if n := strings.Count(stderr.String(), "dropped the client's response"); n != 4 {
		t.Errorf("stderr names %d drops, want 4:\n%s", n, stderr)
	}
}
