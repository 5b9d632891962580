package daemon

import (
	"fmt"
	"testing"
)

// BenchmarkHop is one question's trip through an in-process daemon: ask →
// request_added at a subscriber → answer → ask_user_response at the asker.
// The real binary, with percentiles and a raw echo beside it, is measured by
// `go run ./bench/daemon`.
func BenchmarkHop(b *testing.B) {
	sock := testDaemon(b, nil)
	sub, asker, answerer := dialRaw(b, sock), dialRaw(b, sock), dialRaw(b, sock)
	sub.send(`{"type":"subscribe","role":"watch"}` + "\n")
	sub.expect("snapshot")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("b%d", i)
		asker.send(`{"type":"ask_user_request","requestId":"` + id + `",` + q1 + "}\n")
		asker.expect("ask_user_queued")
		sub.until("request_added")
		answerer.send(`{"type":"answer","requestId":"` + id + `","answers":["1"]}` + "\n")
		answerer.expect("ok")
		asker.expect("ask_user_response answered=true")
	}
	b.StopTimer()
}
