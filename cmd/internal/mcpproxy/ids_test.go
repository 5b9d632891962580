package mcpproxy

import (
	"encoding/json"
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

// One line from the client, after the server sent it requests 7 and "s":
// what reaches the server, and what the client is told. The client's
// lines are read strictly, keys case-exactly, and a message may carry only
// the members JSON-RPC gives it, so that no spelling of a response to an id
// the client was not sent passes for something else on the way — whatever
// the server's JSON reader makes of it.
func TestRelayReadsTheClientStrictly(t *testing.T) {
	t.Parallel()
	const (
		relayed = 0
		dropped = 1
		parse   = -32700
		invalid = -32600
	)
	for _, c := range []struct {
		name, line string
		want       int // relayed, dropped (said on stderr), or the error code the client gets
	}{
		{"an owed response", `{"jsonrpc":"2.0","id":7,"result":{}}`, relayed},
		{"an owed string id", `{"jsonrpc":"2.0","id":"s","error":{"code":1,"message":"no"}}`, relayed},
		{"an owed id, escaped", `{"jsonrpc":"2.0","id":"\u0073","result":{}}`, relayed},
		{"an owed id, key escaped", `{"jsonrpc":"2.0","\u0069d":7,"result":{}}`, relayed},
		{"a request", `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, relayed},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, relayed},
		{"a batch of an owed response and a request", `[{"jsonrpc":"2.0","id":7,"result":{}},{"jsonrpc":"2.0","id":1,"method":"ping"}]`, relayed},

		{"not sent", `{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}`, dropped},
		{"a string for a number", `{"jsonrpc":"2.0","id":"7","result":{}}`, dropped},
		{"a number for a string", `{"jsonrpc":"2.0","id":7.0,"result":{}}`, dropped},
		{"7 spelt 7e0", `{"jsonrpc":"2.0","id":7e0,"result":{}}`, dropped},
		{"a Method key", `{"jsonrpc":"2.0","id":1,"Method":"ping","result":{"action":"decline"}}`, dropped},
		{"a Method key on an owed id", `{"jsonrpc":"2.0","id":7,"Method":"ping","result":{}}`, dropped},
		{"ID", `{"jsonrpc":"2.0","ID":1,"result":{"action":"decline"}}`, dropped},
		{"Id", `{"jsonrpc":"2.0","Id":1,"result":{"action":"decline"}}`, dropped},
		{"iD beside an owed id", `{"jsonrpc":"2.0","id":7,"iD":1,"result":{}}`, dropped},
		{"id with a space", `{"jsonrpc":"2.0","id ":1,"result":{}}`, dropped},
		{"id with a NUL", `{"jsonrpc":"2.0","id\u0000":1,"result":{}}`, dropped},
		{"Result", `{"jsonrpc":"2.0","id":7,"Result":{}}`, dropped},
		{"jſonrpc (long s, which encoding/json folds to s)", `{"jſonrpc":"2.0","id":7,"result":{}}`, dropped},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, dropped},
		{"a null id", `{"jsonrpc":"2.0","id":null,"result":{}}`, dropped},
		{"an object id", `{"jsonrpc":"2.0","id":{"7":7},"result":{}}`, dropped},

		{"NaN", `NaN`, parse},
		{"not JSON", `not json at all`, parse},
		{"a NaN id", `{"jsonrpc":"2.0","id":NaN,"result":{}}`, parse},
		{"two ids", `{"jsonrpc":"2.0","id":7,"id":1,"result":{}}`, parse},
		{"two ids, one escaped", `{"jsonrpc":"2.0","id":7,"\u0069d":1,"result":{}}`, parse},
		{"two methods", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"","result":{}}`, parse},
		{"a key twice deeper", `{"jsonrpc":"2.0","id":7,"result":{"action":"accept","action":"decline"}}`, parse},
		{"two values", `{"jsonrpc":"2.0","id":7,"result":{}} {"jsonrpc":"2.0","id":1,"result":{}}`, parse},
		{"cut short", `{"jsonrpc":"2.0","id":1,"result":{}`, parse},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":{}}", parse},
		{"a lone surrogate", `{"jsonrpc":"2.0","id":"\ud800","result":{}}`, parse},
		{"single quotes", `{'jsonrpc':'2.0','id':1,'result':{}}`, parse},
		{"a trailing comma", `{"jsonrpc":"2.0","id":1,"result":{},}`, parse},

		{"a request with a result", `{"jsonrpc":"2.0","id":1,"method":"ping","result":{"action":"decline"}}`, invalid},
		{"a request with an ID", `{"jsonrpc":"2.0","method":"ping","ID":1}`, invalid},
		{"an empty method", `{"jsonrpc":"2.0","id":1,"method":"","result":{}}`, invalid},
		{"a null method", `{"jsonrpc":"2.0","id":1,"method":null}`, invalid},
		{"a number method", `{"jsonrpc":"2.0","id":1,"method":1}`, invalid},
		{"a request with an object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, invalid},
		{"a number", `1`, invalid},
		{"null", `null`, invalid},
		{"an empty batch", `[]`, invalid},
		{"a batch of a number", `[1]`, invalid},
		{"a batch within a batch", `[[{"jsonrpc":"2.0","id":1,"result":{}}]]`, invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, toClient, toServer := testRelay(nil)
			stderr := &syncBuffer{}
			r.stderr = stderr
			if err := r.fromServer(t.Context(), strings.NewReader(
				`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":"s","method":"roots/list"}`+"\n")); err != nil {
				t.Fatal(err)
			}
			toClient.Reset()
			if err := r.fromClient(strings.NewReader(c.line+"\n"), make(chan struct{})); err != nil {
				t.Fatal(err)
			}
			sent, said := toServer.String(), stderr.String()
			switch c.want {
			case relayed:
				if sent != c.line+"\n" || toClient.String() != "" || said != "" {
					t.Errorf("%s: want it relayed as it came; the server got %q, the client %q, stderr %q", c.line, sent, toClient, said)
				}
				return
			case dropped:
				if !strings.Contains(said, "dropped") || toClient.String() != "" {
					t.Errorf("%s: want it dropped and said on stderr; the client got %q, stderr %q", c.line, toClient, said)
				}
			default:
				var reply struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(toClient.String()), &reply); err != nil || string(reply.ID) != "null" ||
					reply.Error.Code != c.want || reply.JSONRPC != "2.0" || strings.Count(toClient.String(), "\n") != 1 {
					t.Errorf("%s: want error %d with id null; the client got %q", c.line, c.want, toClient)
				}
			}
			if sent != "" {
				t.Errorf("%s: the server got %q", c.line, sent)
			}
		})
	}
}

// A batch keeps what may be relayed: the owed response and the request;
// the unowed response is dropped and the number refused.
func TestRelayBatchKeepsWhatMayBeRelayed(t *testing.T) {
	t.Parallel()
	r, toClient, toServer := testRelay(nil)
	r.stderr = &syncBuffer{}
	if err := r.fromServer(t.Context(), strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	toClient.Reset()
	line := `[{"jsonrpc":"2.0","id":7,"result":{}}, {"jsonrpc":"2.0","ID":1,"result":{}}, 2, {"jsonrpc":"2.0","id":3,"method":"ping"}]`
	if err := r.fromClient(strings.NewReader(line+"\n"), make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	if got, want := toServer.String(), `[{"jsonrpc":"2.0","id":7,"result":{}},{"jsonrpc":"2.0","id":3,"method":"ping"}]`+"\n"; got != want {
		t.Errorf("to the server:\n%s\nwant\n%s", got, want)
	}
	if got := toClient.String(); !strings.Contains(got, `"code":-32600`) || strings.Count(got, "\n") != 1 {
		t.Errorf("to the client: %q", got)
	}
}

// Blank lines are neither relayed nor answered.
func TestRelaySkipsBlankLines(t *testing.T) {
	t.Parallel()
	r, toClient, toServer := testRelay(nil)
	if err := r.fromClient(strings.NewReader("\n \r\n\t\n"), make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	if toServer.String() != "" || toClient.String() != "" {
		t.Errorf("the server got %q, the client %q", toServer, toClient)
	}
}

// Whatever line the client sends, each message that reaches the server is
// read the same way by a case-insensitive reader (encoding/json, which some
// servers use) and a case-exact one: a request, or a response to the one
// request the client was sent.
func FuzzRelayClientLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping","result":{}}`,
		`{"jsonrpc":"2.0","ID":1,"result":{}}`,
		`[{"jsonrpc":"2.0","id":7,"result":{}},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":""}`,
		`{"jsonrpc":"2.0","method":"ping","id":1,"mEthod":""}`,
		`NaN`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		r, _, toServer := testRelay(nil)
		if err := r.fromServer(t.Context(), strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n")); err != nil {
			t.Fatal(err)
		}
		if err := r.fromClient(strings.NewReader(line+"\n"), make(chan struct{})); err != nil {
			t.Fatal(err)
		}
		sent := strings.TrimSpace(toServer.String())
		if sent == "" {
			return
		}
		parts := []json.RawMessage{json.RawMessage(sent)}
		if sent[0] == '[' {
			if err := json.Unmarshal([]byte(sent), &parts); err != nil {
				t.Fatalf("relayed %q, which encoding/json cannot read: %v", sent, err)
			}
		}
		type read struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		for _, p := range parts {
			var loose, exact read
			errLoose, errExact := json.Unmarshal(p, &loose), decodeExact(p, &exact)
			if errLoose != nil || errExact != nil {
				t.Fatalf("relayed %q: %v / %v", p, errLoose, errExact)
			}
			for _, m := range []read{loose, exact} {
				if (m.Method == nil || *m.Method == "") && string(m.ID) != "7" {
					t.Fatalf("relayed %q, a response to id %s", p, m.ID)
				}
			}
		}
	})
}
