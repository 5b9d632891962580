package daemon

import (
	"fmt"
	"testing"

	"askuser/tests/testdaemon"
)

// BenchmarkHop is one question's trip through an in-process daemon: ask →
// request_added at a subscriber → answer → ask_user_response at the asker.
// The real binary, with percentiles and a raw echo beside it, is measured by
// `go run ./bench/daemon`.
func BenchmarkHop(b *testing.B) {
	sock := testDaemon(b, nil)
	sub, asker, answerer := testdaemon.DialRaw(b, sock), testdaemon.DialRaw(b, sock), testdaemon.DialRaw(b, sock)
	sub.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	sub.Expect("snapshot")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("b%d", i)
		asker.Send(`{"type":"ask_user_request","requestId":"` + id + `",` + q1 + "}\n")
		asker.Expect("ask_user_queued")
		sub.Until("request_added")
		answerer.Send(`{"type":"answer","requestId":"` + id + `","answers":["1"]}` + "\n")
		answerer.Expect("ok")
		asker.Expect("ask_user_response answered=true")
	}
	b.StopTimer()
}
