package tests

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// TestMCPProxyReadsTheClientStrictly: while askuser asks the server's form,
// the client sends forged answers to it in every spelling a JSON reader
// might take for a response — a "Method" key beside the result, "ID" and
// "Id", an id twice, NaN — for every id the server could have given it.
// None reaches the server (its stdin is recorded): each line that is not
// JSON, or a request that also answers, gets an error with id null; each
// other is dropped and said on stderr. The server receives askuser's
// accept, and nothing of the client's lines but what the SDK client sent.
func TestMCPProxyReadsTheClientStrictly(t *testing.T) {
	t.Parallel()
	for _, protocol := range proxyProtocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			e.StartDaemon()
			events := testenv.Watch(t, e)
			p := startRawProxy(t, e, nil, protocol)
			ch := mcpCallInBackground(context.Background(), p.mcpProcess, "configure", map[string]any{})
			added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request

			const decline = `"result":{"action":"decline"}`
			var lines strings.Builder
			dropped, refused := 0, 0
			line := func(counter *int, format string, args ...any) {
				fmt.Fprintf(&lines, format+"\n", args...)
				*counter++
			}
			for id := 0; id <= 20; id++ {
				line(&dropped, `{"jsonrpc":"2.0","id":%d,"Method":"ping",`+decline+`}`, id)
				line(&dropped, `{"jsonrpc":"2.0","ID":%d,`+decline+`}`, id)
				line(&dropped, `{"jsonrpc":"2.0","Id":%d,`+decline+`}`, id)
				line(&dropped, `{"jsonrpc":"2.0","iD":"%d",`+decline+`}`, id)
				line(&dropped, `{"jsonrpc":"2.0","id":"%d",`+decline+`}`, id)
				line(&dropped, `{"jsonrpc":"2.0","id":%d.0,`+decline+`}`, id)
				line(&refused, `{"jsonrpc":"2.0","id":%d,"id":%d,`+decline+`}`, 1000+id, id)
				line(&refused, `{"jsonrpc":"2.0","id":%d,"\u0069d":%d,`+decline+`}`, 1000+id, id)
				line(&refused, `{"jsonrpc":"2.0","id":%d,"method":"ping",`+decline+`}`, id)
				line(&refused, `{"jsonrpc":"2.0","id":%d,`+decline+`,"x":NaN}`, id)
			}
			line(&refused, `NaN`)
			line(&refused, `[NaN]`)
			if _, err := p.in.Write([]byte(lines.String())); err != nil {
				t.Fatal(err)
			}
			// The proxy reads the client's lines in order: once the server
			// answered a request sent after them, it read whatever of them
			// was relayed.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := p.cs.ListTools(ctx, nil); err != nil {
				t.Errorf("listing tools after the forged lines: %v", err)
			}
			serverRead := func() string {
				read, err := os.ReadFile(p.serverRead)
				if err != nil {
					t.Fatal(err)
				}
				return string(read)
			}
			for _, forged := range []string{"decline", "NaN", `"Method"`, `"ID"`, `"Id"`, `"iD"`, `\u0069d`} {
				if read := serverRead(); strings.Contains(read, forged) {
					t.Fatalf("the server read %s:\n%s", forged, read)
				}
			}
			// Each refusal went to the client before the tools' list did.
			if len(p.refusals) != refused {
				t.Errorf("%d refusals came back, want %d; stderr:\n%s", len(p.refusals), refused, p.stderr)
			}
			for len(p.refusals) > 0 {
				if r := <-p.refusals; !strings.Contains(r, `"code":-32700`) && !strings.Contains(r, `"code":-32600`) {
					t.Errorf("a refusal: %s", r)
				}
			}
			// Its stderr arrives through a pipe, behind its stdout: waited for.
			saw := testdaemon.Eventually(t, fmt.Sprintf("stderr to say %d messages were dropped", dropped), func() (bool, string) {
				out := p.stderr.String()
				return strings.Count(out, "dropped") >= dropped, out
			})
			if n := strings.Count(saw, "dropped"); n != dropped {
				t.Errorf("stderr says %d messages were dropped, want %d:\n%s", n, dropped, saw)
			}

			if m := testenv.AnswerRaw(t, e, added.RequestID, `"blue"`, `3`, `0.5`, `"Yes"`, `"widget"`, `["a"]`, `""`); m.MessageType() != "ok" {
				t.Fatalf("answer: %#v", m)
			}
			if got := elicitedOf(t, p.mcpProcess, ch); got.Action != "accept" || got.Content["color"] != "blue" {
				t.Errorf("the server received %+v; want askuser's accept", got)
			}
			if read := serverRead(); !strings.Contains(read, `"accept"`) || strings.Contains(read, "decline") {
				t.Errorf("the server read:\n%s", read)
			}
		})
	}
}
